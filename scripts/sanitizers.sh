#!/usr/bin/env bash
# The sanitizer runs (make test-asan, make test-tsan; both in make test-all, not in make test:
# each adds an instrumented build of the library).
#   sanitizers.sh asan  AddressSanitizer with LeakSanitizer: the library and every C test built
#                       with ASan; any report fails the run (one explained LeakSanitizer
#                       suppression: Tests/sanitizers/lsan.supp)
#   sanitizers.sh tsan  ThreadSanitizer: the Swift tests, and the C concurrency tests against a
#                       TSan-built library; the toolchain's known false positives are suppressed,
#                       each explained, in Tests/sanitizers/tsan.supp; any other report fails
# The Swift runtime is linked dynamically here (the sanitizers' runtimes need it so).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
runtime=$(swift_runtime_dir)

# cc_test SANITIZER_FLAGS LIBDIR OUT SRC: a C test linked with an instrumented library.
cc_test() {
  # shellcheck disable=SC2086  # $1 is a list of flags
  clang -std=c99 -g -O1 $1 -Wno-string-compare -Iinclude -Itools -o "$3" "$4" \
    -L"$2" -lreducerkit -L"$runtime" -ldispatch -lBlocksRuntime -lpthread \
    -Wl,-rpath,"$ROOT/$2" -Wl,-rpath,"$runtime"
}

case "${1:-}" in
asan)
  # lld: the sanitizer flags reach the macro plugin's executable too, which gold stopped on
  # with an internal error in the fuzz build (scripts/fuzz.sh).
  "$SWIFT" build -c release --sanitize=address --scratch-path .build-asan-lib --product reducerkit \
    -Xswiftc -use-ld=lld
  mkdir -p "$BUILD/asan"
  for src in Tests/c/test_*.c; do
    t=$(basename "$src" .c)
    cc_test "-fsanitize=address -fno-omit-frame-pointer -fuse-ld=lld" .build-asan-lib/release "$BUILD/asan/$t" "$src"
    echo "== asan $t"
    REDUCERKIT_SCENARIOS=Tests/scenarios ASAN_OPTIONS=detect_leaks=1 \
      LSAN_OPTIONS=suppressions="$ROOT/Tests/sanitizers/lsan.supp" "$BUILD/asan/$t"
  done
  ;;
tsan)
  export TSAN_OPTIONS="suppressions=$ROOT/Tests/sanitizers/tsan.supp print_suppressions=1"
  # shellcheck disable=SC2086  # SWIFT_TRAITS is a list of flags
  "$SWIFT" build --build-tests $SWIFT_TRAITS --sanitize=thread --scratch-path .build-tsan
  # shellcheck disable=SC2086
  "$SWIFT" test --skip-build $SWIFT_TRAITS --sanitize=thread --scratch-path .build-tsan
  "$SWIFT" build -c release --sanitize=thread --scratch-path .build-tsan-lib --product reducerkit
  mkdir -p "$BUILD/tsan"
  # The C tests whose threads share stores.
  for t in test_api test_hardening test_requests test_patch test_record; do
    cc_test "-fsanitize=thread" .build-tsan-lib/release "$BUILD/tsan/$t" "Tests/c/$t.c"
    echo "== tsan $t"
    "$BUILD/tsan/$t"
  done
  ;;
*)
  echo "usage: $0 asan|tsan" >&2
  exit 2
  ;;
esac
