#ifndef PHOTON_PROCESS_ARGUMENTS_H
#define PHOTON_PROCESS_ARGUMENTS_H

/// The argument count the C library gave this process's constructors (0 before they ran).
/// Linking this target is what matters (see process_arguments.c); this declaration lets a
/// test check that the arguments were captured.
int photon_process_argument_count(void);

#endif
