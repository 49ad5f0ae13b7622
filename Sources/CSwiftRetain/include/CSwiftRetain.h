#ifndef CSWIFTRETAIN_H
#define CSWIFTRETAIN_H

#include <stdbool.h>

/// Retains the Swift object at `object` unless its deinitialization has begun; returns whether it
/// did. The Swift runtime's `swift_tryRetain`, which Swift code may not name itself: a context's
/// registry holds objects weakly by address and must not hand out one on its way out.
bool ocd_try_retain(void *object);

#endif
