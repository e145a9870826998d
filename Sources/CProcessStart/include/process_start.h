#ifndef PHOTON_PROCESS_START_H
#define PHOTON_PROCESS_START_H

// What Photon's two programs do for a fast start, before or first thing in main.

/// The argument count the C library gave this process's constructors (0 before they ran).
/// Linking this target is what matters for the arguments (see process_arguments.c); this
/// declaration lets a test check that they were captured.
int photon_process_argument_count(void);

/// Maps this program's .bss writable at once (prefault.c says why). Call it before the
/// program starts a thread.
void photon_prefault_zeroed_data(void);

#endif
