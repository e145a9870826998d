#!/usr/bin/env bash
# Installs what Photon needs on a Debian/Ubuntu machine, only what is missing.
#   scripts/setup.sh build   build dependencies (OpenSSL, Avahi, PulseAudio and ALSA headers,
#                            pkg-config) and PocketSphinx with its US English model (voice)
#   scripts/setup.sh deb     + what `make deb` uses: dpkg-dev (dpkg-shlibdeps), lintian, binutils
#   scripts/setup.sh test    + the test peers: openssl, avahi-daemon, dbus, tmux, man, adb,
#                            PulseAudio (a user-space server is the tests' microphone) and
#                            espeak-ng (the tests' speaker), headless
#                            Chromium and its driver (the web remote), Python venv
#                            with the pinned packages of Tests/peers/requirements.txt,
#                            and starts dbus and a loopback-only avahi-daemon
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-build}

say() { printf 'setup: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else say "need root for: $*"; return 1; fi
}

command -v swift >/dev/null || {
  say "the Swift toolchain (6.0 or newer) is not on PATH: install it from swift.org, then run again"
  exit 1
}

packages=(libssl-dev libavahi-client-dev libmosquitto-dev libqrencode-dev pkg-config openssl)
# Voice: PulseAudio's and ALSA's headers to build; PocketSphinx and its model, which
# `photon voice` opens at run time.
packages+=(libpulse-dev libasound2-dev libpocketsphinx-dev pocketsphinx-en-us)
if [ "$mode" = test ]; then
  # tmux drives `photon remote` in a real terminal; man-db and groff check the man pages;
  # zsh and fish run the completion scripts.
  packages+=(avahi-daemon avahi-utils dbus iproute2 python3 python3-venv util-linux procps tmux man-db groff-base mosquitto zsh fish adb chromium chromium-driver)
  # A user-space PulseAudio with a null sink is the voice tests' microphone; espeak-ng
  # speaks into it.
  packages+=(pulseaudio pulseaudio-utils espeak-ng)
fi
if [ "$mode" = deb ]; then
  packages+=(dpkg-dev lintian binutils man-db)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null && continue
  # A Python that already has python3 with a working venv module needs no python3-venv;
  # the daemon's other-user test runs /usr/bin/python3 as uid 65534 (a Python under
  # /root would not be reachable for that user), so that one must be the system's.
  case "$p" in
    python3) [ -x /usr/bin/python3 ] && continue ;;
    python3-venv) python3 -c 'import venv, ensurepip' 2>/dev/null && continue ;;
  esac
  missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$mode" = test ] || exit 0

# Python test peers, pinned; rebuilt when the requirements change.
stamp=.venv/.requirements.sha256
want=$(sha256sum Tests/peers/requirements.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "creating .venv with the pinned test peers"
  rm -rf .venv
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r Tests/peers/requirements.txt
  echo "$want" >"$stamp"
fi

# dbus and a loopback-only avahi-daemon, for the discovery tests.
if [ "$(id -u)" = 0 ]; then
  if [ ! -S /run/dbus/system_bus_socket ] || ! pgrep -x dbus-daemon >/dev/null; then
    say "starting dbus"
    mkdir -p /run/dbus
    rm -f /run/dbus/pid
    dbus-daemon --system --fork
  fi
  ip link set lo multicast on 2>/dev/null || say "could not enable multicast on lo"
  if ! avahi-daemon --check 2>/dev/null; then
    say "starting avahi-daemon on loopback only (scripts/avahi/avahi-daemon.conf)"
    rm -f /run/avahi-daemon/pid
    avahi-daemon --daemonize --no-drop-root --no-rlimits -f scripts/avahi/avahi-daemon.conf \
      || say "avahi-daemon did not start: discovery tests will report it"
  fi
else
  say "not root: leaving dbus and avahi-daemon as they are"
fi
