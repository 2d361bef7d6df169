#!/usr/bin/env bash
# make docs-swift: DocC documentation of the public Swift modules, with the toolchain's `docc`
# (no package plugin, so no extra dependency): `swift package dump-symbol-graph` extracts the
# public symbols with their doc comments, and `docc convert` renders each module to a static
# site in OUTDIR/MODULE (serve it and open /documentation/<module, lowercased>).
#   usage: docs-swift.sh OUTDIR MODULE...
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR MODULE..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1; shift
swift=${SWIFT:-swift}
docc=$(command -v docc || true)
[ -n "$docc" ] || docc="$(dirname "$(readlink -f "$(command -v "$swift")")")/docc"
[ -x "$docc" ] || { echo "docs-swift: this toolchain has no docc (looked beside $(command -v "$swift"))" >&2; exit 1; }

cd "$root"
# The same build as `make test-swift` (default scratch path, the IdentifiedCollections trait on,
# so forEach is documented): after it, nothing is rebuilt.
"$swift" package --traits IdentifiedCollections dump-symbol-graph >/dev/null
graphs="$root/.build/$(uname -m)-unknown-linux-gnu/symbolgraph"
[ -d "$graphs" ] || graphs=$(dirname "$(find "$root/.build" -path '*/symbolgraph/*.symbols.json' -print -quit)")
mkdir -p "$out"
for module in "$@"; do
  [ -f "$graphs/$module.symbols.json" ] || { echo "docs-swift: no symbol graph for $module in $graphs" >&2; exit 1; }
  staging=$(mktemp -d)
  cp "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json "$staging/" 2>/dev/null || true
  rm -rf "$out/$module"
  "$docc" convert --additional-symbol-graph-dir "$staging" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.reducerkit.$module" \
    --transform-for-static-hosting --output-path "$out/$module" >/dev/null
  rm -rf "$staging"
  echo "docs-swift: $out/$module ($(find "$out/$module/data/documentation" -name '*.json' | wc -l) pages)"
done
