// The VERSION file at the top of the tree, compiled in: the one place Photon's version is
// written. `photon --version`, the man pages and the Debian package all read it.
#include "photon_version.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char version_file[] = {
#embed "../../VERSION"
    , 0
};
#pragma clang diagnostic pop

const char *photon_version_text(void) { return version_file; }
