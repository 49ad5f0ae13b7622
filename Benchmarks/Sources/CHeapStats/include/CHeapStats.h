#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H

#include <stddef.h>

/// Bytes the C heap has handed out and not taken back: glibc's mallinfo2 `uordblks` (in-use
/// chunks in every arena) plus `hblkhd` (blocks served by mmap). Free memory malloc keeps for
/// reuse is not counted, so the figure is what the live objects cost.
size_t cheapstats_heap_in_use(void);

#endif
