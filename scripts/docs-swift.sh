#!/usr/bin/env bash
# make docs-swift: DocC documentation of the public Swift modules, with the toolchain's `docc`
# (no package plugin, so no extra dependency): swift-symbolgraph-extract reads the public
# symbols and their doc comments from the debug build's modules, and `docc convert` renders each
# module to a static site in OUTDIR/MODULE (serve it and open /documentation/<module, lowercased>).
#   usage: docs-swift.sh OUTDIR MODULE...
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR MODULE..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1; shift
swift=${SWIFT:-swift}
tools="$(dirname "$(readlink -f "$(command -v "$swift")")")"
docc=$(command -v docc || echo "$tools/docc")
extract=$(command -v swift-symbolgraph-extract || echo "$tools/swift-symbolgraph-extract")
for tool in "$docc" "$extract"; do
  [ -x "$tool" ] || { echo "docs-swift: this toolchain has no $(basename "$tool") (looked in $tools)" >&2; exit 1; }
done

cd "$root"
# The same debug build as `make test-swift` (default scratch path, the IdentifiedCollections
# trait on, so forEach is documented): after it, nothing is rebuilt. (`swift package
# dump-symbol-graph` would do this too, but fails once the test targets have been built.)
"$swift" build --traits IdentifiedCollections -q
bin=$("$swift" build --traits IdentifiedCollections --show-bin-path)
args=(-target "$(uname -m)-unknown-linux-gnu" -I "$bin/Modules" -module-cache-path "$bin/ModuleCache"
      -minimum-access-level public -omit-extension-block-symbols)
# The target's module maps only: a package with a macro also builds its C modules for the host
# (`NAME-tool.build`), and two maps of one module are a redefinition the extractor stops on.
for map in "$bin"/*.build/module.modulemap; do
  case $map in *-tool.build/module.modulemap) continue ;; esac
  args+=(-Xcc "-fmodule-map-file=$map")
done
for include in Sources/*/include; do args+=(-Xcc -I -Xcc "$root/$include"); done

mkdir -p "$out"
for module in "$@"; do
  graphs=$(mktemp -d)
  "$extract" -module-name "$module" "${args[@]}" -output-dir "$graphs"
  [ -f "$graphs/$module.symbols.json" ] || { echo "docs-swift: no symbol graph for $module" >&2; exit 1; }
  rm -rf "$out/$module"
  "$docc" convert --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.reducerkit.$module" \
    --transform-for-static-hosting --output-path "$out/$module" >/dev/null
  rm -rf "$graphs"
  echo "docs-swift: $out/$module ($(find "$out/$module/data/documentation" -name '*.json' | wc -l) pages)"
done
