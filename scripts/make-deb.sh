#!/usr/bin/env bash
# Builds the Debian package from the tree: .build/deb/photon_<version>_<arch>.deb
#
#   scripts/make-deb.sh            (what `make deb` runs, after `make release`)
#
# - the version is the VERSION file (the one `photon --version` prints);
# - the files are laid out by scripts/install.sh with PREFIX=/usr, as `make install`
#   would, then: binaries stripped, man pages compressed, zsh completion where Debian's zsh
#   reads it, copyright and changelog under /usr/share/doc/photon;
# - Depends come from dpkg-shlibdeps over the binaries (what they are linked against),
#   plus OpenSSL's library package, which photon opens on first use rather than links;
#   Recommends come from the libraries Photon loads only when a feature needs them (Avahi
#   for discovery, libmosquitto for the MQTT bridge, PulseAudio, ALSA and PocketSphinx
#   for voice, libdbus for `photon follow`), read from the dlopen names in the shim headers and resolved to the packages that own them here.
# Then lintian checks it, when installed (scripts/setup.sh deb installs it); an error or a
# warning fails.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(tr -d ' \n' < VERSION)
[[ $version =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || { echo "make-deb: VERSION holds '$version', not a Debian version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
build=${PHOTON_BUILD_DIR:-.build/release}
out=.build/deb
stage=$out/photon_${version}_$arch
package=$out/photon_${version}_$arch.deb
for binary in photon photon-cli photon-emulator; do
  [ -x "$build/$binary" ] || { echo "make-deb: $build/$binary is missing: run \`make deb\` (it builds them)" >&2; exit 1; }
done

rm -rf "$stage" "$package"
mkdir -p "$stage"
DESTDIR="$stage" PHOTON_BUILD_DIR="$build" ZSH_COMPLETION_DIR=share/zsh/vendor-completions scripts/install.sh /usr >/dev/null

# Debian's layout: stripped binaries, compressed man pages (photon-cli's is photon's).
for binary in photon photon-cli photon-emulator; do
  strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/usr/bin/$binary"
done
printf '.so man1/photon.1\n' > "$stage/usr/share/man/man1/photon-cli.1"
gzip -9n "$stage"/usr/share/man/man1/*.1

doc=$stage/usr/share/doc/photon
install -d -m 755 "$doc"
year=$(git log -1 --format=%cd --date=format:%Y 2>/dev/null || date +%Y)
cat > "$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: photon
Comment: Photon, a multi-brand TV remote for Linux. It is built with the Swift toolchain
 (its runtime is linked in statically; Apache-2.0 with Runtime Library Exception, see
 /usr/share/common-licenses/Apache-2.0) and links OpenSSL (Apache-2.0) dynamically.

Files: *
Copyright: $year the Photon developers
License: all-rights-reserved
 The Photon developers have not yet published Photon under a licence. Until they do,
 no permission beyond what the law allows is granted to copy, modify or redistribute it.
EOF
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
maintainer="Photon developers <maintainers@users.noreply.a-seed-b4e1784b.example>"
{
  echo "photon ($version) unstable; urgency=medium"
  echo
  echo "  * Release $version, built from the source tree (see the README)."
  # Subjects cut at a word boundary: a word cut in half reads as a misspelling to lintian.
  git log -8 --format='%s' 2>/dev/null | while IFS= read -r subject; do
    if [ ${#subject} -gt 72 ]; then subject="$(printf '%s' "$subject" | cut -c1-72 | sed -E 's/ [^ ]*$//') ..."; fi
    printf '  * %s\n' "$subject"
  done || true
  echo
  echo " -- $maintainer  $date"
} > "$doc/changelog"
gzip -9n "$doc/changelog"
# Two lintian tags are Photon's choices, made for start-up time (docs/packaging.md says why).
install -d -m 755 "$stage/usr/share/lintian/overrides"
cat > "$stage/usr/share/lintian/overrides/photon" <<'OVERRIDES'
# The front end is linked statically on purpose: a key press through the daemon starts no
# dynamic loader. It only talks to the daemon's Unix socket or runs photon-cli.
photon: statically-linked-binary [usr/bin/photon]
# photon-cli is linked at a fixed address on purpose: as a PIE the loader applies about
# 76,000 relocations before main on every cold key press.
photon: hardening-no-pie [usr/bin/photon-cli]
OVERRIDES
chmod 644 "$stage/usr/share/lintian/overrides/photon"
find "$stage" -type d -exec chmod 755 {} +

# Depends: what the binaries are linked against (dpkg-shlibdeps needs a debian/control).
shlibs=$(mktemp -d)
trap 'rm -rf "$shlibs"' EXIT
mkdir -p "$shlibs/debian"
printf 'Source: photon\n\nPackage: photon\nArchitecture: any\n' > "$shlibs/debian/control"
binaries=()
for binary in photon photon-cli photon-emulator; do binaries+=("$(realpath "$stage/usr/bin/$binary")"); done
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "${binaries[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# OpenSSL is opened on first use (Sources/COpenSSLLoader), so dpkg-shlibdeps does not see
# it; nothing works without it: it is a dependency, at the major version built against.
openssl_major=$(sed -n 's/^# *define OPENSSL_VERSION_MAJOR *\([0-9]*\).*/\1/p' /usr/include/openssl/opensslv.h | head -n 1)
[ -n "$openssl_major" ] || { echo "make-deb: cannot read OPENSSL_VERSION_MAJOR from /usr/include/openssl/opensslv.h (libssl-dev)" >&2; exit 1; }
if ! ldd "$(realpath "$stage/usr/bin/photon-cli")" | grep -q "libssl\.so\.$openssl_major"; then
  libssl=$(ldconfig -p | awk -v s="libssl.so.$openssl_major" '$1 == s && !found { print $NF; found = 1 }')
  [ -n "$libssl" ] || { echo "make-deb: libssl.so.$openssl_major is not installed here: run scripts/setup.sh build" >&2; exit 1; }
  libssl_package=$(dpkg -S "$(realpath "$libssl")" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') || true
  [ -n "$libssl_package" ] || libssl_package=$(dpkg -S "$libssl" | awk -F: 'NR == 1 { print $1 }')
  depends="$depends, $libssl_package (>= $openssl_major.0.0)"
fi

# Recommends: the libraries loaded at run time (by soname), as packaged on this system.
recommends=()
for soname in $(grep -ho '"lib[a-z-]*\.so\.[0-9]*"' Sources/CAvahi/shim.h Sources/CMosquitto/shim.h Sources/CQREncode/shim.h Sources/CAudioCapture/shim.h Sources/CDBus/shim.h | tr -d '"' | sort -u); do
  # awk reads all of its input (no early exit): with pipefail, a reader that stops early
  # makes the writer die of SIGPIPE (exit 141) whenever its output outruns the pipe.
  path=$(ldconfig -p | awk -v s="$soname" '$1 == s && !found { print $NF; found = 1 }')
  [ -n "$path" ] || { echo "make-deb: $soname is not installed here: run scripts/setup.sh build" >&2; exit 1; }
  owner=$(dpkg -S "$(realpath "$path")" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') || true
  [ -n "$owner" ] || owner=$(dpkg -S "$path" | awk -F: 'NR == 1 { print $1 }')
  recommends+=("$owner")
done
# pocketsphinx-en-us: the speech model `photon voice` recognises with (data, no soname).
recommends_line=$(printf '%s\n' "${recommends[@]}" avahi-daemon pocketsphinx-en-us | sort -u | paste -sd, | sed 's/,/, /g')

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<EOF
Package: photon
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: $recommends_line
Section: utils
Priority: optional
Description: multi-brand TV remote for the terminal, scripts and home automation
 Photon drives Android TV, Samsung, LG webOS and Roku televisions from a Linux
 machine: pairing with pinned certificates or keys, keys, text, apps, inputs,
 channels, power and status, from the photon command, its daemon's socket API,
 or the MQTT bridge to Home Assistant.
 .
 The package holds photon, photon-cli, photon-emulator (emulated TVs that speak
 the real protocols, to try everything without a TV), the man pages, bash, zsh
 and fish completions and the daemon as a systemd user service.
EOF
chmod 644 "$stage/DEBIAN/control"

dpkg-deb --root-owner-group --build -Zxz "$stage" "$package" >/dev/null
echo "make-deb: $package ($(du -h "$package" | cut -f1))"
echo "  Depends: $depends"
echo "  Recommends: $recommends_line"

if command -v lintian >/dev/null; then
  # Any error or warning fails the build; the two overrides above are explained in
  # docs/packaging.md.
  lintian --tag-display-limit 0 "$package" | tee "$out/lintian.txt"
  if grep -q '^[EW]: ' "$out/lintian.txt"; then echo "make-deb: lintian reports errors or warnings" >&2; exit 1; fi
  echo "make-deb: lintian: no errors, no warnings"
else
  echo "make-deb: lintian is not installed (scripts/setup.sh deb installs it); the package was not checked" >&2
fi
