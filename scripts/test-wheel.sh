#!/usr/bin/env bash
# The README's Python install, as a new user follows it: `make wheel`, then, in a fresh venv,
# on a PATH without the Swift toolchain, from a directory outside the checkout and with no
# REDUCERKIT_* variable, `pip install` the wheel and use it. Also: the wheel carries the
# library and the LICENSE and is tagged for the platform, and `pip install ./bindings/python`
# without Swift fails saying how to get the library.
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
case "$(basename "$wheel")" in
  reducerkit-"$version"-py3-none-linux_*.whl | reducerkit-"$version"-py3-none-manylinux*.whl) ;;
  *) fail "$(basename "$wheel"): not a platform wheel of version $version (the header's)";;
esac
unzip_p() { "$python" -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$@"; }
contents=$("$python" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$wheel")
for f in reducerkit/libreducerkit.so reducerkit/__init__.py reducerkit/py.typed \
  "reducerkit-$version.dist-info/licenses/LICENSE"; do
  grep -qxF "$f" <<<"$contents" || fail "$(basename "$wheel") lacks $f; it has: $contents"
done
cmp -s <(unzip_p "$wheel" reducerkit/libreducerkit.so) build/libreducerkit.so \
  || fail "the wheel's libreducerkit.so is not build/libreducerkit.so"
unzip_p "$wheel" "reducerkit-$version.dist-info/WHEEL" | grep -qx 'Root-Is-Purelib: false' \
  || fail "the wheel says it is pure Python"
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
