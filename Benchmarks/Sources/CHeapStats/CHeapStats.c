#include "CHeapStats.h"

#include <malloc.h>

size_t cheapstats_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

void cheapstats_release_free_memory(void) {
    malloc_trim(0);
}
