#!/bin/sh
# Instructions per operation of each benchmarks/c/codec_ir.c mode, counted by callgrind: the
# difference between two counts of operations over the difference of the counts, so the
# store's set-up cancels out. Repeatable on a loaded machine (unlike times).
#
#   sh benchmarks/ir.sh [BINARY]          (make bench-ir)
#   LD_LIBRARY_PATH=DIR sh benchmarks/ir.sh   another build of the library (DIR holds
#                                             libreducerkit.so.0), to compare before and after
#   make bench-check                      these rows against benchmarks/ir-baseline.txt
#                                         (benchmarks/ir-check.sh)
set -eu
bin=${1:-build/bench/codec_ir}
command -v valgrind >/dev/null || { echo "bench-ir: valgrind is not installed" >&2; exit 1; }
# Swift seeds its hashing per process; a fixed seed makes dictionary work the same every run.
SWIFT_DETERMINISTIC_HASHING=1
export SWIFT_DETERMINISTIC_HASHING
refs() {
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1) || {
        printf '%s\n' "$out" >&2
        echo "bench-ir: $bin $1 $2 failed" >&2
        exit 1
    }
    printf '%s\n' "$out" | sed -n 's/.*I[[:space:]]*refs:[[:space:]]*//p' | tr -d ,
}
printf '%-12s %s\n' mode "instructions per operation"
# mode, a low and a high count of operations ("row=mode": the row's own name for a mode).
# first-send: the very first send of the process (counts 0 and 1); first-sends the first 16.
for spec in "send 1000 11000" "decode 1000 6000" "patch 200 2200" "patch-plain 200 1200" "encode 20 120" \
            "get 200 1200" "get-trusted 200 1200" "get-root 20 120" "record 1000 6000" "record-taken 1000 6000" "first-sends 0 16" "first-send=first-sends 0 1" \
            "toggle 200 1200" "get-toggled 200 1200" "round-trip 200 1200"; do
    set -- $spec
    row=${1%%=*}
    mode=${1#*=}
    low=$(refs "$mode" "$2")
    high=$(refs "$mode" "$3")
    printf '%-12s %s\n' "$row" $(( (high - low) / ($3 - $2) ))
done
