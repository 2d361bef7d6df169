#!/usr/bin/env bash
# Smoke check of `make docs` (in `make test`): pdoc renders the Python package with its
# docstrings, and DocC renders the ReducerKit module with its doc comments.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
out="$root/build/docs-check"
rm -rf "$out"
fail() { echo "test-docs: $*" >&2; exit 1; }

make --no-print-directory -s docs-python BUILD="$out" >/dev/null
page="$out/docs/python/reducerkit.html"
[ -f "$page" ] || fail "pdoc wrote no $page"
for text in 'id="Store"' 'id="load_library"' 'id="LibraryNotFoundError"' "fallback to another copy"; do
  grep -qF "$text" "$page" || fail "the Python docs lack: $text"
done
echo "test-docs: Python API docs ($(ls "$out/docs/python"/*.html "$out/docs/python"/*/*.html 2>/dev/null | wc -l) pages)"

bash scripts/docs-swift.sh "$out/swift" ReducerKit
store="$out/swift/ReducerKit/data/documentation/reducerkit/store.json"
[ -f "$store" ] || fail "DocC wrote no page for Store ($store)"
summary=$(sed -n 's|^/// \([A-Za-z ]\{12\}\).*|\1|p' Sources/ReducerKit/Store.swift | head -1)
[ -n "$summary" ] || fail "no doc comment found in Sources/ReducerKit/Store.swift"
grep -qF "$summary" "$store" || fail "the Store page lacks its doc comment ('$summary...')"
echo "test-docs: passed"
