#!/usr/bin/env bash
# Fails when a Swift file of the tree is not as swift-format (from the toolchain) would
# write it, under the checked-in .swift-format: `swift-format lint --strict`.
#   scripts/check-format.sh          check (make test and CI run it)
#   scripts/check-format.sh --fix    format the tree in place (make format)
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v swift-format || echo /opt/swift/usr/bin/swift-format)
[ -x "$format" ] || { echo "check-format: swift-format is not in the toolchain on PATH" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.swift' 2>/dev/null || find . -name '*.swift' -not -path './.build/*' -not -path '*/.build/*')
if [ "${1:-}" = --fix ]; then
  "$format" format --in-place --parallel "${files[@]}"
  exit 0
fi
if ! "$format" lint --strict --parallel "${files[@]}"; then
  echo "check-format: the files above are not formatted: run \`make format\` (swift-format, .swift-format)" >&2
  exit 1
fi
