#!/usr/bin/env bash
# Typed stubs, as a user generates and uses them: for each feature in DIR/features, the Python
# module and the C header of `python -m reducerkit stubs`; DIR/good.py must pass mypy --strict
# and run, DIR/good.c must compile with -Wall -Wextra -pedantic -Werror and run, and each
# DIR/bad_* must be rejected, with the error its first line names (see Tests/stubs/README.md).
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
cp "$dir"/*.py "$dir"/*.c "$work/"
cd "$work"
mypy_run() {  # the stubs and the program as user code; reducerkit's own modules silently
  MYPYPATH="$work:$root/bindings/python/src" python3 -m mypy --strict --follow-imports=silent \
    --no-incremental --cache-dir=/dev/null "$@"
}
mypy_run ./*_types.py good.py
python3 good.py
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
