// Hands the Swift runtime this process's arguments the way the C library gives them to
// every constructor, instead of letting it find them by reading /proc/self/maps.
//
// Why: a statically linked Swift standard library finds `CommandLine.arguments` on Linux
// with a constructor (CommandLine.cpp's ArgvGrabber) that opens /proc/self/maps, scans
// every line with sscanf to find the stack, and walks back from `environ` — 70–120 µs
// before `main` in every process, and `photon key` starts two (the front end, then
// photon-cli). glibc calls each `.init_array` function with (argc, argv, envp), so the
// arguments are simply handed to us.
//
// How: the runtime reaches that code only through the two functions below. An executable
// that links this object defines both, so the static linker never extracts
// CommandLine.cpp.o from libswiftCore.a and its constructor never runs. Where the runtime
// is a shared library (debug builds) its own definitions are internal to it and these are
// unused. Should a future runtime need another symbol of that object, the link fails with
// duplicate definitions rather than doing the work twice.
#include "process_start.h"

#include <stddef.h>

static char **captured_argv;
static int captured_argc;
static char **override_argv;
static int override_argc;

static void capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    captured_argc = argc;
    captured_argv = argv;
}

// Runs before main, with the C library's arguments (glibc and musl both pass them).
__attribute__((used, section(".init_array"))) static void (*const capture_arguments_entry)(int, char **, char **) =
    capture_arguments;

int photon_process_argument_count(void) { return captured_argc; }

// The runtime's override, kept for anything that sets it (an interpreter embedding Swift).
__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    override_argv = argv;
    override_argc = argc;
}

// What `CommandLine.arguments` and `CommandLine.unsafeArgv` read.
__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (override_argv != NULL) {
        *outArgLen = override_argc;
        return override_argv;
    }
    if (captured_argv != NULL) {
        *outArgLen = captured_argc;
        return captured_argv;
    }
    static char *empty_argv[] = {NULL};
    *outArgLen = 0;
    return empty_argv;
}
