// OpenSSL loaded on first use: see include/openssl_loader.h for why.
//
// How, on x86-64: for each function in openssl_functions.h this file defines
//   - a slot (a pointer, zero until loaded), and
//   - an entry point of the function's own name (hidden: it resolves this program's calls
//     and is never exported, so the libraries themselves always bind to their own code)
//     that jumps through its slot, or, while the slot is empty, to `photon_openssl_resolve`,
//     which keeps every argument register, loads the library and jumps through the slot.
// The jump leaves the caller's arguments, stack and return address untouched, so one entry
// point serves every signature, variadic ones included.
#include "openssl_loader.h"

#if defined(__x86_64__) && defined(__linux__)

#include <dlfcn.h>
#include <openssl/opensslv.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PHOTON_STRINGIFY_VALUE(x) #x
#define PHOTON_STRINGIFY(x) PHOTON_STRINGIFY_VALUE(x)
// The soname of the libssl these headers belong to ("libssl.so.3"); it brings libcrypto.
#define PHOTON_LIBSSL_SONAME "libssl.so." PHOTON_STRINGIFY(OPENSSL_VERSION_MAJOR)

// The slots, read by the entry points below.
#define PHOTON_OPENSSL_FUNCTION(name) __attribute__((visibility("hidden"))) void *photon_openssl_slot_##name;
#include "openssl_functions.h"
#undef PHOTON_OPENSSL_FUNCTION

struct photon_openssl_function {
    const char *name;
    void **slot;
};
static const struct photon_openssl_function photon_openssl_functions[] = {
#define PHOTON_OPENSSL_FUNCTION(name) {#name, &photon_openssl_slot_##name},
#include "openssl_functions.h"
#undef PHOTON_OPENSSL_FUNCTION
};

static pthread_once_t photon_openssl_once = PTHREAD_ONCE_INIT;
static int photon_openssl_loaded;

static void photon_openssl_fail(const char *what, const char *detail) {
    char message[512];
    int length = snprintf(
        message, sizeof message,
        "photon: error: OpenSSL could not be loaded: %s (%s)\n"
        "  hint: install OpenSSL %d's shared library (Debian and Ubuntu: apt install libssl3)\n",
        what, detail ? detail : "no detail", OPENSSL_VERSION_MAJOR);
    if (length > 0) {
        ssize_t ignored = write(STDERR_FILENO, message, (size_t)length < sizeof message ? (size_t)length : sizeof message - 1);
        (void)ignored;
    }
    _exit(70);  // EX_SOFTWARE: nothing of the command could have run without it
}

static void photon_openssl_load_once(void) {
    void *library = dlopen(PHOTON_LIBSSL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) photon_openssl_fail("cannot open " PHOTON_LIBSSL_SONAME, dlerror());
    size_t count = sizeof photon_openssl_functions / sizeof photon_openssl_functions[0];
    for (size_t index = 0; index < count; index++) {
        // Searches libssl, then what it depends on (libcrypto).
        void *function = dlsym(library, photon_openssl_functions[index].name);
        if (function == NULL) photon_openssl_fail(photon_openssl_functions[index].name, dlerror());
        __atomic_store_n(photon_openssl_functions[index].slot, function, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&photon_openssl_loaded, 1, __ATOMIC_RELEASE);
}

void photon_openssl_load(void) { pthread_once(&photon_openssl_once, photon_openssl_load_once); }

int photon_openssl_is_loaded(void) { return __atomic_load_n(&photon_openssl_loaded, __ATOMIC_ACQUIRE); }

// The common slow path. On entry %r11 holds the address of the slot of the function that
// was called; every register that can carry an argument (and %rax, the vector-register
// count of a variadic call) is kept across the load. The stack is 8 past a 16-byte
// boundary on entry (the caller's return address), 8 pushes and 136 bytes make it aligned
// for the call.
__asm__(
    "    .text\n"
    "    .p2align 4\n"
    "    .type photon_openssl_resolve, @function\n"
    "photon_openssl_resolve:\n"
    "    pushq %rdi\n"
    "    pushq %rsi\n"
    "    pushq %rdx\n"
    "    pushq %rcx\n"
    "    pushq %r8\n"
    "    pushq %r9\n"
    "    pushq %rax\n"
    "    pushq %r11\n"
    "    subq $136, %rsp\n"
    "    movdqu %xmm0, 0(%rsp)\n"
    "    movdqu %xmm1, 16(%rsp)\n"
    "    movdqu %xmm2, 32(%rsp)\n"
    "    movdqu %xmm3, 48(%rsp)\n"
    "    movdqu %xmm4, 64(%rsp)\n"
    "    movdqu %xmm5, 80(%rsp)\n"
    "    movdqu %xmm6, 96(%rsp)\n"
    "    movdqu %xmm7, 112(%rsp)\n"
    "    call photon_openssl_load\n"
    "    movdqu 0(%rsp), %xmm0\n"
    "    movdqu 16(%rsp), %xmm1\n"
    "    movdqu 32(%rsp), %xmm2\n"
    "    movdqu 48(%rsp), %xmm3\n"
    "    movdqu 64(%rsp), %xmm4\n"
    "    movdqu 80(%rsp), %xmm5\n"
    "    movdqu 96(%rsp), %xmm6\n"
    "    movdqu 112(%rsp), %xmm7\n"
    "    addq $136, %rsp\n"
    "    popq %r11\n"
    "    popq %rax\n"
    "    popq %r9\n"
    "    popq %r8\n"
    "    popq %rcx\n"
    "    popq %rdx\n"
    "    popq %rsi\n"
    "    popq %rdi\n"
    "    jmpq *(%r11)\n"
    "    .size photon_openssl_resolve, .-photon_openssl_resolve\n"
    // One entry point per function.
    "    .macro photon_openssl_entry name\n"
    "    .globl \\name\n"
    "    .hidden \\name\n"
    "    .type \\name, @function\n"
    "    .p2align 4\n"
    "\\name:\n"
    "    movq photon_openssl_slot_\\name(%rip), %r11\n"
    "    testq %r11, %r11\n"
    "    jz 1f\n"
    "    jmpq *%r11\n"
    "1:  leaq photon_openssl_slot_\\name(%rip), %r11\n"
    "    jmp photon_openssl_resolve\n"
    "    .size \\name, .-\\name\n"
    "    .endm\n"
#define PHOTON_OPENSSL_FUNCTION(name) "    photon_openssl_entry " #name "\n"
#include "openssl_functions.h"
#undef PHOTON_OPENSSL_FUNCTION
);

#else

// Linked as usual (Package.swift links libssl and libcrypto on these machines).
void photon_openssl_load(void) {}
int photon_openssl_is_loaded(void) { return 1; }

#endif
