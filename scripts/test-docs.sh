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
# Every public name has its docs (check and InvariantFailure are imported on first use), the
# strategies have a page, no reST `::` is left as a paragraph (code is in Markdown fences), and
# no private name shows outside the source listings.
"$python" - "$out/docs/python" <<'PY' || fail "the Python docs are incomplete (above)"
import html, re, sys
from pathlib import Path
root = Path(sys.argv[1])
wanted = {
    "reducerkit.html": {"Store": "A store of a feature", "LibraryABIError": "does not keep to it"},
    "reducerkit/testing.html": {"check": "random sequences", "InvariantFailure": "The invariant failed",
                                "TestStore": "exhaustive test"},
    "reducerkit/testing/strategies.html": {"actions": "Valid actions of", "from_schema": "valid for"},
}
problems = []
for page, members in wanted.items():
    path = root / page
    if not path.is_file():
        problems.append(f"{page}: no such page"); continue
    text = path.read_text()
    main = text[text.index("<main"):]
    main = re.sub(r'<div class="pdoc-code codehilite">.*?</pre></div>', "", main, flags=re.S)
    main = re.sub(r"<pre>.*?</pre>", "", main, flags=re.S)
    for name, phrase in members.items():
        m = re.search(rf'<section id="{name}">(.*?)</section>', main, flags=re.S)
        words = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))) if m else ""
        if phrase not in words:
            problems.append(f"{page}: {name} is missing or lacks its docs ({phrase!r})")
    words = html.unescape(re.sub(r"<[^>]+>", "", main))
    for m in re.finditer(r"::", words):
        problems.append(f"{page}: a stray '::': ...{words[max(0, m.start() - 60):m.end()]}")
    for name in sorted(set(re.findall(r"(?<![\w.])(?:reducerkit\.)?_[A-Za-z]\w*", words))):
        problems.append(f"{page}: a private name shows: {name}")
    for name in re.findall(r'id="([\w.]*(?:untyped|send_address)[\w.]*)"', main):
        problems.append(f"{page}: an internal member shows: {name}")
print("\n".join(problems), file=sys.stderr)
sys.exit(1 if problems else 0)
PY
echo "test-docs: Python API docs ($(ls "$out/docs/python"/*.html "$out/docs/python"/*/*.html "$out/docs/python"/*/*/*.html 2>/dev/null | wc -l) pages)"

bash scripts/docs-swift.sh "$out/swift" ReducerKit
store="$out/swift/ReducerKit/data/documentation/reducerkit/store.json"
[ -f "$store" ] || fail "DocC wrote no page for Store ($store)"
summary=$(sed -n 's|^/// \([A-Za-z ]\{12\}\).*|\1|p' Sources/ReducerKit/Store.swift | head -1)
[ -n "$summary" ] || fail "no doc comment found in Sources/ReducerKit/Store.swift"
grep -qF "$summary" "$store" || fail "the Store page lacks its doc comment ('$summary...')"
echo "test-docs: passed"
