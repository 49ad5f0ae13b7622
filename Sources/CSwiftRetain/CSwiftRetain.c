#include "CSwiftRetain.h"

#include <stddef.h>

// Exported by the Swift runtime, which every Swift program links. The Swift 6 runtime returns
// the object when it retained it and NULL when the object is deinitializing (read from its
// machine code: it returns its argument or zero).
extern void *swift_tryRetain(void *object);

bool ocd_try_retain(void *object) { return swift_tryRetain(object) != NULL; }

// Also the runtime's: the counts an `unowned` reference keeps in the object's header.
extern void *swift_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);

void ocd_unowned_retain(void *object) { (void)swift_unownedRetain(object); }

void ocd_unowned_release(void *object) { swift_unownedRelease(object); }

static _Thread_local ocd_pending_model pending_model;

ocd_pending_model *ocd_pending_model_slot(void) { return &pending_model; }
