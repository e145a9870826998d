#ifndef PHOTON_QRENCODE_SHIM_H
#define PHOTON_QRENCODE_SHIM_H
#include <qrencode.h>
#include <dlfcn.h>
#include <string.h>

// libqrencode is loaded when `photon web pair` first draws a code, not at every start of
// photon (and a machine without it still pairs: the URL and code are printed as text).
#define PHOTON_QRENCODE_LIBRARY "libqrencode.so.4"

/// Encodes `text` (8-bit mode, error correction M) and copies the modules, one byte per
/// module (1 = dark), row by row into `out` (at most `capacity` bytes). Returns the
/// symbol's width, 0 when the text does not fit, or -1 when the library is missing.
static inline int photon_qr_encode(const char *text, unsigned char *out, int capacity) {
    void *handle = dlopen(PHOTON_QRENCODE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return -1;
    __typeof__(&QRcode_encodeString8bit) encode = (__typeof__(&QRcode_encodeString8bit))dlsym(handle, "QRcode_encodeString8bit");
    __typeof__(&QRcode_free) release = (__typeof__(&QRcode_free))dlsym(handle, "QRcode_free");
    if (!encode || !release) return -1;
    QRcode *code = encode(text, 0, QR_ECLEVEL_M);
    if (!code) return 0;
    int width = code->width;
    if (width * width > capacity) { release(code); return 0; }
    for (int i = 0; i < width * width; i++) out[i] = code->data[i] & 1;
    release(code);
    return width;
}
#endif
