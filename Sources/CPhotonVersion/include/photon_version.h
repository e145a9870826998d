#ifndef PHOTON_VERSION_H
#define PHOTON_VERSION_H
/// Photon's version: the text of the VERSION file at the top of the tree.
const char *photon_version_text(void);
#endif
