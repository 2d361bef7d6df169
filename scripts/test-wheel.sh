#!/usr/bin/env bash
# The README's Python install, as a new user follows it: `make wheel`, then, in a fresh venv,
# on a PATH without the Swift toolchain, from a directory outside the checkout and with no
# REDUCERKIT_* variable, `pip install` the wheel and use it, and fuzz with it (the wheel's own
# reducerkit-check replays the sequences, also of a user's own library). Also: the wheel
# carries the library, the runner and the LICENSE, is tagged cp311-abi3-manylinux_*, and
# `pip install ./bindings/python` without Swift fails saying how to get the library.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
version=$(sed -n 's/^#define RK_VERSION_STRING "\(.*\)"/\1/p' include/reducerkit.h)

fail() { echo "test-wheel: $*" >&2; exit 1; }

make --no-print-directory -s wheel >/dev/null
wheels=(dist/reducerkit-*.whl)
[ ${#wheels[@]} -eq 1 ] || fail "expected one wheel in dist/, found: ${wheels[*]}"
wheel=$root/${wheels[0]}
# The abi3 extension (_speedups) for CPython 3.11+, and the glibc the binaries need.
case "$(basename "$wheel")" in
  reducerkit-"$version"-cp311-abi3-manylinux_2_[0-9]*_"$(uname -m)".whl) ;;
  *) fail "$(basename "$wheel"): not a cp311-abi3-manylinux wheel of version $version (the header's)";;
esac
unzip_p() { "$python" -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$@"; }
contents=$("$python" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$wheel")
for f in reducerkit/libreducerkit.so reducerkit/reducerkit-check reducerkit/_speedups.abi3.so \
  reducerkit/__init__.py reducerkit/py.typed reducerkit/cli/__init__.py reducerkit/cli/run.py \
  reducerkit/testing/store.py reducerkit/cli/inspect.py reducerkit/inspect/page.html \
  reducerkit/inspect/page.js reducerkit/inspect/page.css \
  "reducerkit-$version.dist-info/licenses/LICENSE"; do
  grep -qxF "$f" <<<"$contents" || fail "$(basename "$wheel") lacks $f; it has: $contents"
done
cmp -s <(unzip_p "$wheel" reducerkit/libreducerkit.so) build/libreducerkit.so \
  || fail "the wheel's libreducerkit.so is not build/libreducerkit.so"
wheel_info=$(unzip_p "$wheel" "reducerkit-$version.dist-info/WHEEL")
grep -qx 'Root-Is-Purelib: false' <<<"$wheel_info" || fail "the wheel says it is pure Python"
grep -qx "Tag: ${wheel_name_tag:=$(basename "$wheel" .whl | cut -d- -f3-)}" <<<"$wheel_info" \
  || fail "the WHEEL file's tag is not the file name's ($wheel_name_tag): $wheel_info"
# auditwheel agrees with the tag (it grafted nothing: the binaries need only system libraries).
"$python" -m auditwheel show "$wheel" | tr -s ' \n' ' ' | grep -qF "consistent with the following platform tag: \"$(cut -d- -f3 <<<"$wheel_name_tag")\"" \
  || fail "auditwheel show disagrees with the tag $wheel_name_tag: $("$python" -m auditwheel show "$wheel")"
echo "test-wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KB) carries the library and LICENSE"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A PATH without the Swift toolchain (nor anything else that has a `swift`).
nosw=""
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/swift" ] && nosw="${nosw:+$nosw:}$d"
done
"$python" -m venv "$tmp/venv"
run() {  # a command in the venv, without Swift on PATH, without REDUCERKIT_* variables
  (cd "$tmp/elsewhere" && env -u REDUCERKIT_LIB -u REDUCERKIT_PACKAGE_LIB -u PYTHONPATH \
    -u VIRTUAL_ENV PATH="$tmp/venv/bin:$nosw" "$@")
}
mkdir -p "$tmp/elsewhere"
run sh -c '! command -v swift' >/dev/null || fail "swift is still on the test's PATH"

run pip install -q --no-index "$wheel"
out=$(run python -c '
import os, sys, reducerkit
store = reducerkit.Store("counter")
store.send("increment")
store.send({"setCount": 41}); store.send("increment")
assert store.state["count"] == 42, store.state
lib = store.library.path
assert lib.startswith(sys.prefix + os.sep), (lib, sys.prefix)
print(lib)
')
echo "test-wheel: a fresh venv without Swift loads $out"
features=$(run python -m reducerkit features) || fail "python -m reducerkit features failed"
grep -q "counter" <<<"$features" || fail "python -m reducerkit features: $features"
out=$(run reducerkit version) || fail "the reducerkit command does not run"
grep -qF "library $version (ABI 1) at $tmp/venv/" <<<"$out" || fail "reducerkit version: $out"
run python -c 'import reducerkit.store as s; assert s._speedups is not None' \
  || fail "the wheel's _speedups extension does not load"

# The inspector from the wheel alone (docs/inspecting.md): a report, and a live page.
cp Tests/scenarios/counter_fact.scenario.json "$tmp/elsewhere/"
out=$(run python -m reducerkit inspect counter_fact.scenario.json) || fail "python -m reducerkit inspect failed: $out"
grep -q 'id="rk-data"' "$tmp/elsewhere/counter_fact.html" && grep -qF 'window.reducerkit = Object.freeze' "$tmp/elsewhere/counter_fact.html" \
  || fail "the inspector's report from the wheel lacks its data or its script: $out"
run python -c '
import urllib.request, reducerkit
with reducerkit.Store("counter") as store:
    page = urllib.request.urlopen(store.inspect(port=0), timeout=30).read()
    assert b"window.reducerkit = Object.freeze" in page, page[:200]
' || fail "store.inspect() from the wheel does not serve the page"
echo "test-wheel: python -m reducerkit inspect and store.inspect() work from the wheel"

# Fuzzing from the wheel alone (with Hypothesis, from PyPI): the wheel's reducerkit-check
# replays each sequence; a failure's hint replays it, also for a user's own library.
run pip install -q hypothesis || fail "pip install hypothesis (from PyPI) failed"
printf '%s\n' 'def anything(state):' '    return True' 'def small(state):' \
  '    assert abs(state["count"]) < 5, "count is %d" % state["count"]' > "$tmp/elsewhere/checks.py"
out=$(run python -m reducerkit fuzz counter --invariant checks:anything --examples 20 --seed 1) \
  || fail "python -m reducerkit fuzz failed with the wheel alone: $out"
grep -qF "in 20 random sequences of up to 20 steps, and reducerkit-check agreed on every state" <<<"$out" \
  || fail "python -m reducerkit fuzz: $out"
mkdir "$tmp/mine"
cp build/libreducerkit.so "$tmp/mine/libmine.so"  # a user's own library, somewhere else
status=0
err=$(run python -m reducerkit fuzz counter --lib "$tmp/mine/libmine.so" --invariant checks:small \
  --examples 200 --seed 3 --out found.scenario.json 2>&1) || status=$?
[ $status -eq 1 ] || fail "fuzz with a failing invariant exited $status: $err"
hint=$(sed -n 's/.*(replay it: \(.*\))$/\1/p' <<<"$err")
[ -n "$hint" ] || fail "the fuzz failure has no replay hint: $err"
n=0
while IFS= read -r command; do
  out=$(run sh -c "$command") || fail "the hint's replay command failed: $command: $out"
  grep -qx '1 passed, 0 failed' <<<"$out" || fail "the hint's replay command: $command: $out"
  n=$((n + 1))
done < <(sed 's/, or /\n/' <<<"$hint")
[ $n -eq 2 ] || fail "expected two replay commands in the hint: $hint"
echo "test-wheel: python -m reducerkit fuzz works from the wheel alone; its hint replays a user library's failure"

# The source install without Swift stops early and says how to get the library.
status=0
out=$(run pip install --no-cache-dir "$root/bindings/python" 2>&1) || status=$?
[ $status -ne 0 ] || fail "pip install ./bindings/python without Swift succeeded (a package without its library)"
for text in "the Swift toolchain is not on PATH" "make wheel" "REDUCERKIT_PACKAGE_LIB"; do
  grep -qF "$text" <<<"$out" || { echo "$out"; fail "the no-Swift install error lacks: $text"; }
done
echo "test-wheel: pip install ./bindings/python without Swift fails saying how to get the library"

# ... and packages a library named by REDUCERKIT_PACKAGE_LIB (a library built elsewhere).
run env REDUCERKIT_PACKAGE_LIB="$root/build/libreducerkit.so" \
  pip install -q --no-cache-dir --force-reinstall "$root/bindings/python" >/dev/null 2>&1 \
  || fail "pip install with REDUCERKIT_PACKAGE_LIB failed"
run python -c 'import reducerkit; reducerkit.Store("counter").send("increment")' \
  || fail "the package built with REDUCERKIT_PACKAGE_LIB does not work"
status=0
out=$(run env REDUCERKIT_PACKAGE_LIB="$tmp/missing.so" pip install --no-cache-dir "$root/bindings/python" 2>&1) \
  || status=$?
[ $status -ne 0 ] && grep -qF "missing.so" <<<"$out" \
  || { echo "$out"; fail "a missing REDUCERKIT_PACKAGE_LIB was not an error naming it"; }
echo "test-wheel: passed"
