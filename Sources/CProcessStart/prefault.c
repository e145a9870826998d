// Maps this program's zero-initialised data (.bss) writable in one call, before its
// first thread starts.
//
// Why: the Swift runtime keeps its once-tokens and many metadata caches in .bss. A page of
// it read first is mapped to the shared zero page; the first write then copies it and the
// kernel must flush that address from every core that runs the process, with an
// inter-processor interrupt, which a virtual machine makes dear. A cold `photon key`
// read-then-wrote ~40 such pages while its second thread ran (measured with the kernel's
// page-fault tracepoint), ~30 of them flushes. Populated at start, when the process has
// one thread, the pages cost one batched call and no flush.
#include "process_start.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

// Defined by every ELF linker: where .bss starts and where the program's data ends.
extern char __bss_start[];
extern char _end[];

void photon_prefault_zeroed_data(void) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)__bss_start + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)_end + page - 1) & ~(page - 1);
    if (end <= start) return;
    // Kernels before 5.14 answer EINVAL: then the pages fault in one by one, as before.
    (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}
