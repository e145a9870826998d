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
