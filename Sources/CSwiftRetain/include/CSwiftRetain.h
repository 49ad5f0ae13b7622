#ifndef CSWIFTRETAIN_H
#define CSWIFTRETAIN_H

#include <stdbool.h>

#pragma clang assume_nonnull begin

/// Retains the Swift object at `object` unless its deinitialization has begun; returns whether it
/// did. The Swift runtime's `swift_tryRetain`, which Swift code may not name itself: a context's
/// registry holds objects weakly by address and must not hand out one on its way out.
bool ocd_try_retain(void *object);

/// Keeps the memory of the Swift object at `object` (not the object: it may still be
/// deinitialized) until `ocd_unowned_release`, as an `unowned` reference does: `ocd_try_retain`
/// may then be asked about it at any time. A model's managed object refers to its model this way,
/// without the side table a `weak` reference would give every model.
void ocd_unowned_retain(void *object);

/// `ocd_unowned_retain` without the atomic step, for an object no other thread can reach yet
/// (one just made on this thread): its counts are then changed by this thread alone.
void ocd_unowned_retain_unshared(void *object);

/// Gives up what `ocd_unowned_retain` kept; the object's memory goes with the last such
/// reference once it is deinitialized.
void ocd_unowned_release(void *object);

/// The model a fetch is making on this thread: its managed object and its class's metadata.
typedef struct ocd_pending_model {
    void *_Nullable object;
    const void *_Nullable type;
} ocd_pending_model;

/// This thread's pending model (zeroed on each new thread). A model's class sets its storage
/// before its initializer's body runs, in an initial value that cannot be given arguments: a
/// thread-local is how the fetch tells it which managed object it stands for, and one read of
/// it costs less than a Swift task-local's lookup a model.
ocd_pending_model *ocd_pending_model_slot(void);

/// How often this thread's Observation probe was hashed (zero on each new thread): the hash of
/// the probe's key path is how a model learns, without a registrar of its own, that a read
/// happens while Observation tracks accesses (`ObservationProbe` in OpenSwiftData).
unsigned long *ocd_observation_probe_hits(void);

/// This thread's spare Swift object (OpenSwiftData: the registrar a model's tracked read takes),
/// retained; NULL when there is none.
void *_Nullable ocd_spare_registrar(void);

/// Makes `object` (retained, or NULL) this thread's spare, without releasing the one before:
/// taking the spare is handing it over. A spare left when the thread ends is released then.
void ocd_set_spare_registrar(void *_Nullable object);

/// Asks the processor to start loading the cache line holding `address` for reading, without
/// waiting for it (a hint: no fault for any address). A fetched object's first read takes each of
/// its row's column cells from a different line; asked for together they load side by side.
static inline void ocd_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#pragma clang assume_nonnull end

#endif
