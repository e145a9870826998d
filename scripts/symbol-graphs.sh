#!/usr/bin/env bash
# Extracts the public symbol graphs of Photon's library modules from a debug build:
#   scripts/symbol-graphs.sh OUTDIR MODULE...
# (what `make docs` feeds DocC, and what the doc-comment test reads). The modules must be
# built (`swift build`); the toolchain's swift-symbolgraph-extract reads their
# .swiftmodule files and the C module maps of Sources/C*.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
extract=$(command -v swift-symbolgraph-extract || echo /opt/swift/usr/bin/swift-symbolgraph-extract)
[ -x "$extract" ] || { echo "symbol-graphs: swift-symbolgraph-extract is not in the toolchain on PATH" >&2; exit 1; }
modules=${PHOTON_MODULES_DIR:-.build/debug/Modules}
[ -d "$modules" ] || { echo "symbol-graphs: no $modules: run swift build first" >&2; exit 1; }
includes=(-I "$modules")
for map in Sources/C*/module.modulemap; do includes+=(-I "$(dirname "$map")"); done
for map in Sources/C*/include; do includes+=(-I "$map"); done
mkdir -p "$out"
for module in "$@"; do
  "$extract" -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" "${includes[@]}" \
    -minimum-access-level public -output-dir "$out"
done
