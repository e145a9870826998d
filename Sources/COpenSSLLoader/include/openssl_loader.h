#ifndef PHOTON_OPENSSL_LOADER_H
#define PHOTON_OPENSSL_LOADER_H

/// OpenSSL, loaded when a process first uses it rather than when it starts.
///
/// Linked the usual way, libssl and libcrypto are mapped and relocated (~4,200 symbol
/// lookups, ~100 pages written) by the dynamic loader before `main` of every program
/// that links them: 1.0-1.3 ms of every `photon` command on this class of machine,
/// whether it speaks TLS or not (`photon key` to a Roku, `photon list`, `--help`).
/// On x86-64 Photon instead defines each OpenSSL function it calls as a small entry
/// point that jumps through a slot; the first call through any of them, or
/// `photon_openssl_load`, opens the system's libssl (and with it libcrypto) with
/// `dlopen` and fills every slot, once per process. The library is the distribution's
/// shared one, so its security updates apply as before. Elsewhere the libraries are
/// linked as usual and these functions do nothing.

/// Loads OpenSSL now if no call has yet (the first call through any entry point does the
/// same). Safe from any thread; returns once the library is usable. If the library
/// cannot be opened, prints why to standard error and ends the process (exit status 70),
/// as the dynamic loader would have at start.
void photon_openssl_load(void);

/// Whether OpenSSL has been loaded in this process (always 1 where it is linked as usual).
int photon_openssl_is_loaded(void);

#endif
