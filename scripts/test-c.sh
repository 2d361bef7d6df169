#!/usr/bin/env bash
# The C tests, built by make (build/c/test_*). Modes:
#   test-c.sh           (make test-c) the header alone in C and in C++; every test; the tests that
#                       exercise the codec again on the reference codec (fast paths off) and with
#                       both codecs compared on every call; then the C scenario runner: every
#                       scenario passes, each Tests/scenarios/wrong file fails it, and each
#                       Tests/scenarios/hostile file gets the verdict its name gives
#   test-c.sh --quick   (make check) every test once, and the scenarios
#   test-c.sh --valgrind  (make test-valgrind) every test under valgrind
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
export REDUCERKIT_SCENARIOS=Tests/scenarios
mode=${1:-full}
tests=""
for src in Tests/c/test_*.c; do
  t=$BUILD/c/$(basename "$src" .c)
  [ -x "$t" ] || { echo "test-c: $t is missing (make builds it)" >&2; exit 1; }
  tests="$tests $t"
done
check=$BUILD/reducerkit-check
timeout_ms=$(scaled_ms 10000)

if [ "$mode" = --valgrind ]; then
  # With the suppressions `make install` ships (tools/valgrind.supp: the Swift runtime's
  # by-design caches and two benign reads, each explained), a "possibly lost" block fails a test
  # as a definite leak does. --fair-sched=yes: valgrind runs one thread at a time, and its
  # default lock lets a thread that calls the library in a tight loop starve the others for
  # minutes (a test thread woken from a 2 ms sleep waited > 10 min while a sender looped).
  for t in $tests; do
    echo "== valgrind $t"
    RK_UNDER_VALGRIND=1 valgrind --fair-sched=yes --error-exitcode=99 --leak-check=full \
      --errors-for-leak-kinds=definite,possible --show-leak-kinds=definite,possible \
      --suppressions=tools/valgrind.supp -q "$t"
  done
  exit 0
fi

if [ "$mode" = full ]; then
  # shellcheck disable=SC2086  # CFLAGS_C is a list of flags
  "$CC" $CFLAGS_C -fsyntax-only Tests/c/header_only.c
  "$CXX" -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -x c++ -fsyntax-only Tests/c/header_only.c
fi
for t in $tests; do echo "== $t"; "$t"; done
if [ "$mode" = --quick ]; then
  "$check" --timeout-ms "$timeout_ms" Tests/scenarios
  exit 0
fi

for name in test_features test_bad_input test_scenarios test_record test_patch; do
  echo "== $name, on the reference codec (fast paths off)"
  REDUCERKIT_WIRE_FAST_PATHS=0 "$BUILD/c/$name"
  echo "== $name, both codecs (and both patch differs) on every call, compared"
  REDUCERKIT_WIRE_CHECK=1 "$BUILD/c/$name"
done

echo "== reducerkit-check (dlopen of the shipped library), and each wrong scenario must fail it"
"$check" --timeout-ms "$timeout_ms" Tests/scenarios
for f in Tests/scenarios/wrong/*.wrong.json; do
  status=0
  "$check" --timeout-ms "$timeout_ms" "$f" >/dev/null || status=$?
  [ $status -eq 1 ] || { echo "reducerkit-check: $f is wrong on purpose but exited $status" >&2; exit 1; }
done
echo "reducerkit-check failed each of Tests/scenarios/wrong/*.wrong.json"

echo "== reducerkit-check gives each hostile file its verdict (Tests/scenarios/hostile: NAME.pass.json, NAME.fail.json)"
for f in Tests/scenarios/hostile/*.json; do
  status=0
  "$check" "$f" >/dev/null 2>&1 || status=$?
  case "$f" in *.pass.json) want=0 ;; *) want=1 ;; esac
  [ $status -eq $want ] || { echo "reducerkit-check: $f exited $status, expected $want" >&2; "$check" "$f" >&2; exit 1; }
done
echo "reducerkit-check gave each of Tests/scenarios/hostile/*.json its verdict"
