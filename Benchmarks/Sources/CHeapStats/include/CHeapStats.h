#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H

#include <stddef.h>

/// Bytes the C heap has handed out and not taken back: glibc's mallinfo2 `uordblks` (in-use
/// chunks in every arena) plus `hblkhd` (blocks served by mmap). Free memory malloc keeps for
/// reuse is not counted, so the figure is what the live objects cost.
size_t cheapstats_heap_in_use(void);

/// Gives every free page of every arena back to the system (glibc's malloc_trim(0)), so that a
/// run starts with no freed memory left over from the run before it, whichever way made it.
void cheapstats_release_free_memory(void);

#endif
