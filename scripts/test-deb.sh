#!/usr/bin/env bash
# Tests the Debian package on this machine (as root; CI runs as root): installs
# .build/deb/photon_<VERSION>_<arch>.deb, then with the installed binaries only:
#   photon --version (must be VERSION), photon keys, man -w photon, the completions as the
#   shells load them, the systemd user unit, and an emulated TV (installed photon-emulator)
#   paired and sent a key by the installed photon;
# then purges the package and checks that every file it installed is gone while the
# user's own data (the paired TV under --home) is still there.
# It refuses to run where a photon package is already installed: it would replace it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'test-deb: %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { say "run as root (it installs and removes the package): sudo scripts/test-deb.sh"; exit 1; }
version=$(tr -d ' \n' < VERSION)
package=.build/deb/photon_${version}_$(dpkg --print-architecture).deb
[ -f "$package" ] || { say "$package is missing: run make deb"; exit 1; }
if dpkg-query -W -f='${Status}' photon 2>/dev/null | grep 'install ok installed' >/dev/null; then
  say "a photon package is installed already; remove it first (dpkg --purge photon)"
  exit 1
fi

work=$(mktemp -d)
emulator_pid=
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true
  if dpkg-query -W -f='${Status}' photon 2>/dev/null | grep 'install ok installed' >/dev/null; then dpkg --purge photon >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

dpkg-deb -c "$package" | awk '{ print $NF }' | sed 's|^\./|/|; s|/$||' | grep -v '^/$' > "$work/files"
# OpenSSL is opened at run time, not linked: the package must still depend on it.
dpkg-deb -f "$package" Depends | grep -Eq '(^|, )libssl[0-9]+ \(>= [0-9]+\.0\.0\)' ||
  fail "Depends does not name OpenSSL's library package: $(dpkg-deb -f "$package" Depends)"
dpkg -i "$package" >/dev/null || fail "dpkg -i $package"
say "installed $(dpkg-query -W -f='${Package} ${Version}' photon)"

# Only the installed binaries from here on.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
[ "$(command -v photon)" = /usr/bin/photon ] || fail "photon is not /usr/bin/photon"
[ "$(photon --version)" = "photon $version" ] || fail "photon --version says '$(photon --version)', not 'photon $version'"
[ "$(photon-cli --version)" = "photon $version" ] || fail "photon-cli --version says '$(photon-cli --version)'"
photon keys | grep '^home ' >/dev/null || fail "photon keys lists no home key"
[ "$(man -w photon)" = /usr/share/man/man1/photon.1.gz ] || fail "man -w photon says '$(man -w photon 2>&1)'"
man -w photon-cli >/dev/null || fail "no man page for photon-cli"
man -w photon-emulator >/dev/null || fail "no man page for photon-emulator"
MANWIDTH=80 man photon 2>/dev/null | grep 'photon' >/dev/null || fail "man photon shows nothing"
bash -c '. /usr/share/bash-completion/completions/photon && complete -p photon' | grep photon >/dev/null || fail "the bash completion does not register"
if command -v zsh >/dev/null; then
  zsh -f -c 'fpath=(/usr/share/zsh/vendor-completions $fpath); autoload -Uz compinit && compinit -u && (( $+_comps[photon] ))' ||
    fail "zsh does not find the completion in /usr/share/zsh/vendor-completions"
fi
if command -v fish >/dev/null; then
  # fish reads /usr/share/fish/vendor_completions.d by itself (a clean configuration).
  HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data fish -c 'complete -C "photon ke"' > "$work/fish.out" 2> "$work/fish.err"
  grep -q '^keys' "$work/fish.out" || fail "fish does not complete photon ke"
  [ ! -s "$work/fish.err" ] || fail "fish reported errors in the completion: $(head -5 "$work/fish.err")"
fi
grep -q '^ExecStart=/usr/bin/photon serve' /usr/lib/systemd/user/photon.service || fail "the user unit does not run /usr/bin/photon"
grep -q '^ExecStart=/usr/bin/photon follow %i' /usr/lib/systemd/user/photon-follow@.service || fail "the follow unit does not run /usr/bin/photon follow"

# An emulated TV from the installed emulator, paired and driven by the installed photon.
home=$work/home
photon-emulator roku --port 0 > "$work/emulator.log" 2>&1 &
emulator_pid=$!
for _ in $(seq 100); do grep -q '"event":"ready"' "$work/emulator.log" && break; sleep 0.05; done
port=$(sed -n 's/.*"event":"ready".*"port":\([0-9]*\).*/\1/p' "$work/emulator.log" | awk 'NR == 1')
[ -n "$port" ] || fail "the emulator did not start: $(cat "$work/emulator.log")"
photon pair "127.0.0.1:$port" --brand roku --name tv --home "$home" </dev/null >/dev/null || fail "photon pair"
photon key tv home --home "$home" || fail "photon key tv home"
for _ in $(seq 100); do grep -q '"event":"key".*"Home"' "$work/emulator.log" && break; sleep 0.05; done
grep -q '"event":"key".*"Home"' "$work/emulator.log" || fail "the emulated TV saw no Home key: $(cat "$work/emulator.log")"
kill "$emulator_pid"
emulator_pid=
say "the installed photon paired an emulated Roku and pressed Home"

dpkg --purge photon >/dev/null || fail "dpkg --purge photon"
left=()
while read -r path; do
  [ -d "$path" ] && [ ! -L "$path" ] && continue   # shared directories (/usr/bin …) stay
  [ -e "$path" ] || [ -L "$path" ] && left+=("$path")
done < "$work/files"
[ -d /usr/share/doc/photon ] && left+=(/usr/share/doc/photon)
[ "${#left[@]}" = 0 ] || fail "left behind after purge: ${left[*]}"
[ -n "$(ls -A "$home" 2>/dev/null)" ] || fail "the user's own data under $home is gone"
say "purged: nothing of the package is left; the user's data is kept"
say "ok"
