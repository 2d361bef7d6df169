#!/usr/bin/env bash
# make fuzz (FUZZ_SECONDS=N, default 20) and make test-fuzz (20 s each, in make test): the
# libFuzzer harnesses of Tests/fuzz (see its README) against the library built with
# AddressSanitizer and coverage. Each runs N seconds from its committed seed corpus plus what
# earlier runs found (build/fuzz/corpus-NAME); a crash, a sanitizer report or a failed check
# fails the run, the input written to build/fuzz/NAME-crash-… (turn it into a regression test).
#   fuzz.sh [SECONDS [HARNESS...]]   harnesses: fuzz_json fuzz_send fuzz_create fuzz_resolve fuzz_scenario
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
seconds=${1:-20}
shift || true
fuzzers=${*:-fuzz_json fuzz_send fuzz_create fuzz_resolve fuzz_scenario}
runtime=$(swift_runtime_dir)
out=$BUILD/fuzz
# libFuzzer's cap on one input (a hang is reported as a failure), scaled like every cap.
timeout_s=$(scaled_ms 30)
mkdir -p "$out/shims"

# The JSON parser and codec harness is compiled together with the ReducerKitWire sources (it
# reaches their internals), with AddressSanitizer and libFuzzer; rebuilt when a source changed.
# ReducerKitPlatform (the lock vocabulary Wire imports, `package` access) is compiled first as its
# own module, in the same package.
wire_sources=$(find Sources/ReducerKitWire -name '*.swift' | sort)
platform_sources=$(find Sources/ReducerKitPlatform -name '*.swift' | sort)
if [ ! -x "$out/fuzz_json" ] || [ -n "$(find $wire_sources $platform_sources Tests/fuzz/fuzz_json.swift \
     Sources/CReducerKitShims -newer "$out/fuzz_json" -print -quit)" ]; then
  printf 'module CReducerKitShims {\n  header "%s"\n  export *\n}\n' \
    "$ROOT/Sources/CReducerKitShims/include/CReducerKitShims.h" > "$out/shims/module.modulemap"
  clang -c -g -O1 -fsanitize=fuzzer-no-link,address -ISources/CReducerKitShims/include \
    Sources/CReducerKitShims/shims.c -o "$out/shims.o"
  mkdir -p "$out/platform"
  # shellcheck disable=SC2086  # one argument per source
  "$SWIFTC" -O -g -swift-version 6 -sanitize=address -parse-as-library -wmo -package-name ReducerKit \
    -module-name ReducerKitPlatform -emit-module -emit-module-path "$out/platform/ReducerKitPlatform.swiftmodule" \
    -c $platform_sources -o "$out/platform.o"
  # shellcheck disable=SC2086  # one argument per source
  "$SWIFTC" -O -g -swift-version 6 -sanitize=fuzzer,address -parse-as-library -use-ld=lld -package-name ReducerKit \
    -module-name ReducerKitWireFuzz -I "$out/shims" -I "$out/platform" $wire_sources Tests/fuzz/fuzz_json.swift \
    "$out/shims.o" "$out/platform.o" -o "$out/fuzz_json"
fi

# The C harnesses drive the library built with ASan and coverage. Linked with lld: the flags
# reach the macro plugin's executable too (the shipped features use @Wire), and gold stopped
# on it with an internal error.
"$SWIFT" build -c release --sanitize=address --scratch-path .build-fuzz-lib --product reducerkit \
  -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld
for f in $fuzzers; do
  n=${f#fuzz_}
  if [ "$f" != fuzz_json ]; then
    clang -g -O1 -fsanitize=fuzzer,address -Iinclude -o "$out/$f" "Tests/fuzz/$f.c" \
      -L.build-fuzz-lib/release -lreducerkit -L"$runtime" -ldispatch -lBlocksRuntime -lpthread \
      -fuse-ld=lld -Wl,-rpath,"$ROOT/.build-fuzz-lib/release" -Wl,-rpath,"$runtime"
  fi
  mkdir -p "$out/corpus-$n"
  echo "== $f for $seconds s"
  status=0
  REDUCERKIT_WIRE_CHECK=1 LSAN_OPTIONS=suppressions="$ROOT/Tests/sanitizers/lsan.supp" \
    "$out/$f" -max_total_time="$seconds" -max_len=4096 -timeout="$timeout_s" -print_final_stats=1 \
    -artifact_prefix="$out/$n-" "$out/corpus-$n" "Tests/fuzz/corpus/$n" > "$out/$n.log" 2>&1 || status=$?
  grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|fuzz check failed|SUMMARY" "$out/$n.log" || true
  if [ $status -ne 0 ]; then tail -40 "$out/$n.log"; exit $status; fi
done
