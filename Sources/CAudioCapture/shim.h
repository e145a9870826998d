// Types and constants of libpulse-simple and ALSA, for PhotonVoice. No library is linked:
// PhotonVoice loads libpulse-simple, libasound and libpocketsphinx at first use (dlopen),
// so that no other command pays for loading them (they pull in D-Bus, systemd and
// sndfile libraries), and a machine without them still runs everything but voice.
#include <pulse/simple.h>
#include <pulse/error.h>
#include <alsa/asoundlib.h>
#include <dlfcn.h>

// The libraries PhotonVoice opens (scripts/make-deb.sh reads these for Recommends).
#define PHOTON_LIB_PULSE_SIMPLE "libpulse-simple.so.0"
#define PHOTON_LIB_ASOUND "libasound.so.2"
#define PHOTON_LIB_POCKETSPHINX "libpocketsphinx.so.3"

// ALSA prints its own complaints to stderr (`ALSA lib confmisc.c:855:(parse_card) cannot
// find card '0'`) before Photon can say what is wrong; this handler keeps it quiet. The
// handler type is variadic, which Swift cannot write.
static void photon_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
/// Installs the quiet handler through ALSA's `snd_lib_error_set_handler` (looked up by the caller).
static inline void photon_alsa_silence(void *set_handler) {
    if (set_handler) ((int (*)(snd_lib_error_handler_t))set_handler)(photon_alsa_quiet);
}
