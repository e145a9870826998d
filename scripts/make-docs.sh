#!/usr/bin/env bash
# The API reference for people who build on the library, with the toolchain's DocC (the
# DocC plugin cannot be fetched): for each of PhotonKit, PhotonCore, PhotonConformance and
# PhotonTesting (the test kit), its public symbol graph from the debug build and its
# catalog (Sources/<Module>/<Module>.docc) become a static site under .build/docs/<Module>;
# .build/docs/index.html links them. Any DocC warning (a broken symbol link, say) fails.
#   scripts/make-docs.sh [OUTDIR]     (what `make docs` runs, after `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/docs}
modules=(PhotonKit PhotonCore PhotonConformance PhotonTesting)
docc=$(command -v docc || echo /opt/swift/usr/bin/docc)
[ -x "$docc" ] || { echo "make-docs: docc is not in the toolchain on PATH" >&2; exit 1; }
graphs=.build/symbol-graphs
rm -rf "$graphs" "$out"
mkdir -p "$out"
for module in "${modules[@]}"; do
  scripts/symbol-graphs.sh "$graphs/$module" "$module"
  # Only the module's own graph (not its extensions of other modules' types).
  find "$graphs/$module" -name '*@*.symbols.json' -delete
  "$docc" convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$graphs/$module" \
    --output-path "$out/$module" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.photon.$module" \
    --transform-for-static-hosting --hosting-base-path "$module" \
    --warnings-as-errors 2>&1 | sed "s|^|docc $module: |"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "make-docs: DocC failed (or warned) on $module" >&2; exit 1; }
done
{
  echo '<!doctype html><meta charset="utf-8"><title>Photon API reference</title>'
  echo '<h1>Photon API reference</h1><ul>'
  for module in "${modules[@]}"; do
    echo "<li><a href=\"$module/documentation/$(tr '[:upper:]' '[:lower:]' <<<"$module")/\">$module</a></li>"
  done
  echo '</ul>'
} > "$out/index.html"
echo "make-docs: $out/index.html (serve the folder over HTTP: python3 -m http.server -d $out)"
