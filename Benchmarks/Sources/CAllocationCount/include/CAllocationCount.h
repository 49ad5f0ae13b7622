#ifndef CALLOCATIONCOUNT_H
#define CALLOCATIONCOUNT_H

#include <stddef.h>

/// Starts counting the heap allocations every thread makes (malloc, calloc, realloc and the
/// aligned forms), from zero.
void allocationcount_start(void);

/// Stops counting; returns how many allocations were made since `allocationcount_start()`.
size_t allocationcount_stop(void);

#endif
