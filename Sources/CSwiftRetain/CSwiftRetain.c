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

extern void *swift_nonatomic_unownedRetain(void *object);

void ocd_unowned_retain_unshared(void *object) { (void)swift_nonatomic_unownedRetain(object); }

void ocd_unowned_release(void *object) { swift_unownedRelease(object); }

static _Thread_local ocd_pending_model pending_model;

ocd_pending_model *ocd_pending_model_slot(void) { return &pending_model; }

static _Thread_local unsigned long observation_probe_hits;

unsigned long *ocd_observation_probe_hits(void) { return &observation_probe_hits; }

extern void swift_release(void *object);

static _Thread_local void *spare_registrar;

void *ocd_spare_registrar(void) { return spare_registrar; }

#if defined(_WIN32)
// No destructor for a thread's values here: a thread's last spare outlives it.
void ocd_set_spare_registrar(void *object) { spare_registrar = object; }
#else
#include <pthread.h>

// The same object under a key whose destructor releases it when the thread ends: C's
// thread-locals have no destructors.
static pthread_key_t spare_key;
static pthread_once_t spare_key_once = PTHREAD_ONCE_INIT;

static void release_spare(void *object) { swift_release(object); }

static void make_spare_key(void) { (void)pthread_key_create(&spare_key, release_spare); }

void ocd_set_spare_registrar(void *object) {
    spare_registrar = object;
    (void)pthread_once(&spare_key_once, make_spare_key);
    (void)pthread_setspecific(spare_key, object);
}
#endif
