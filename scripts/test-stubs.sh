#!/usr/bin/env bash
# Typed stubs, as a user generates and uses them: for each feature in DIR/features, the Python
# module and the C header of `python -m reducerkit stubs`; DIR/good.py must pass mypy --strict
# and run, DIR/good.c must compile with -Wall -Wextra -pedantic -Werror and run, and each
# DIR/bad_* must be rejected, with the error its first line names (see Tests/stubs/README.md).
# If DIR/hostile_features.json exists (features as rk_features() prints them, with hostile
# names), its stubs must be the same bytes whatever the hash seed, DIR/hostile.py must pass
# mypy --strict and run, and DIR/hostile.c must compile with gcc and clang at -std=c99, gnu17
# and c2x and send what DIR/hostile_expected.json lists (DIR/hostile_check.py).
#   usage: scripts/test-stubs.sh LIBRARY DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONPATH="$root/bindings/python/src${PYTHONPATH:+:$PYTHONPATH}"
export REDUCERKIT_LIB="$lib"
while read -r feature; do
  [ -n "$feature" ] || continue
  python3 -m reducerkit --lib "$lib" stubs "$feature" -o "$work/${feature}_types.py"
  python3 -m reducerkit --lib "$lib" stubs --lang c "$feature" -o "$work/${feature}_actions.h"
done < "$dir/features"
hostile=()
if [ -e "$dir/hostile_features.json" ]; then  # generated twice: same bytes whatever the seed
  mkdir "$work/again"
  PYTHONHASHSEED=0 python3 "$dir/hostile_generate.py" "$dir/hostile_features.json" "$work"
  PYTHONHASHSEED=4242 python3 "$dir/hostile_generate.py" "$dir/hostile_features.json" "$work/again"
  for f in "$work"/again/*; do
    cmp "$work/${f##*/}" "$f" || { echo "stubs: ${f##*/} differs from run to run" >&2; exit 1; }
  done
  echo "stubs: the stubs of $dir/hostile_features.json are the same bytes from run to run"
  hostile=(hostile.py hostile_check.py hostile_generate.py)
fi
cp "$dir"/*.py "$dir"/*.c "$work/"
cd "$work"
mypy_run() {  # the stubs and the program as user code; reducerkit's own modules silently
  MYPYPATH="$work:$root/bindings/python/src" python3 -m mypy --strict --follow-imports=silent \
    --no-incremental --cache-dir=/dev/null "$@"
}
mypy_run ./*_types.py good.py "${hostile[@]}"
python3 good.py
if [ ${#hostile[@]} -gt 0 ]; then
  python3 hostile.py "$dir/hostile_features.json"
fi
bad_py=(bad_*.py)
if [ -e "${bad_py[0]}" ]; then  # one mypy run: each file must have its own expected error
  out=$(mypy_run "${bad_py[@]}" 2>&1) || true
  for bad in "${bad_py[@]}"; do
    expect=$(sed -n '1s/^# expect: //p' "$bad")
    if ! grep -F -- "$bad:" <<<"$out" | grep -q "error:.*$(printf '%s' "$expect" | sed 's/[][\.*^$]/\\&/g')"; then
      echo "$out"; echo "stubs: mypy --strict should reject $dir/$bad with '$expect'" >&2; exit 1
    fi
    echo "stubs: mypy --strict rejects $bad: $(grep -F -m1 "$bad:" <<<"$out" | cut -c1-150)"
  done
fi
cflags=(-std=c99 -Wall -Wextra -pedantic -Werror -I"$root/include" -I"$work")
cc "${cflags[@]}" good.c -o good -L"$(dirname "$lib")" -l:"$(basename "$lib")" -Wl,-rpath,"$(dirname "$lib")"
./good
if [ ${#hostile[@]} -gt 0 ]; then  # hostile.c defines rk_store_send(_n) itself: no library
  compilers=()
  for c in gcc clang; do
    if command -v "$c" >/dev/null; then compilers+=("$c"); else echo "stubs: no $c: hostile.c is not compiled with it"; fi
  done
  [ ${#compilers[@]} -gt 0 ] || { echo "stubs: neither gcc nor clang found" >&2; exit 1; }
  for c in "${compilers[@]}"; do
    for std in c99 gnu17 c2x; do
      "$c" "-std=$std" "${cflags[@]:1}" hostile.c -o hostile
      ./hostile > hostile.out
      python3 "$dir/hostile_check.py" "$dir/hostile_features.json" "$dir/hostile_expected.json" \
        hostile.out | sed "s/\$/ ($c -std=$std)/"
    done
  done
fi
for bad in bad_*.c; do
  [ -e "$bad" ] || continue
  expect=$(sed -n '1s|^/\* expect: \(.*\) \*/$|\1|p' "$bad")
  status=0; out=$(cc "${cflags[@]}" -c "$bad" -o /dev/null 2>&1) || status=$?
  if [ $status -eq 0 ] || ! grep -qF -- "$expect" <<<"$out"; then
    echo "$out"; echo "stubs: cc should reject $dir/$bad mentioning '$expect' (exit $status)" >&2; exit 1
  fi
  echo "stubs: cc -Werror rejects $bad: $(grep -m1 'error' <<<"$out" | cut -c1-150)"
done
echo "stubs: $(tr '\n' ' ' < "$dir/features")typed in Python and C"
