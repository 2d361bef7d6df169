#!/bin/sh
# The regression gate (make bench-check): counts every benchmarks/ir.sh row and fails when one
# is more than 5 % above its line in the baseline (benchmarks/ir-baseline.txt), or missing.
# Counts, not times: repeatable on a loaded machine. Updating the baseline on purpose:
# benchmarks/README.md.
#
#   sh benchmarks/ir-check.sh [BINARY [BASELINE]]
set -eu
bin=${1:-build/bench/codec_ir}
baseline=${2:-benchmarks/ir-baseline.txt}
[ -r "$baseline" ] || { echo "bench-check: no baseline $baseline (see benchmarks/README.md)" >&2; exit 1; }
now=$(mktemp)
trap 'rm -f "$now"' EXIT
sh "$(dirname "$0")/ir.sh" "$bin" > "$now"
# Rows are "mode count"; the header and comment lines (#) are skipped.
awk -v limit=1.05 '
    FNR == 1 || /^#/ || NF < 2 { next }
    FILENAME == ARGV[1] { base[$1] = $2; order[++n] = $1; next }
    { now[$1] = $2; if (!($1 in base)) extra[++m] = $1 }
    END {
        printf "%-12s %12s %12s %7s\n", "row", "baseline", "now", "ratio"
        bad = 0
        for (i = 1; i <= n; i++) {
            row = order[i]
            if (!(row in now)) { printf "%-12s %12d %12s %7s  MISSING\n", row, base[row], "-", "-"; bad++; continue }
            ratio = base[row] > 0 ? now[row] / base[row] : (now[row] > 0 ? 99 : 1)
            verdict = ratio > limit ? "  SLOWER (> 5 %)" : ""
            if (ratio > limit) bad++
            printf "%-12s %12d %12d %7.3f%s\n", row, base[row], now[row], ratio, verdict
        }
        for (i = 1; i <= m; i++) printf "%-12s %12s %12d %7s  (not in the baseline)\n", extra[i], "-", now[extra[i]], "-"
        if (bad) { printf "bench-check: %d row(s) more than 5 %% above the baseline (%s)\n", bad, ARGV[1]; exit 1 }
        print "bench-check: every row within 5 % of the baseline"
    }' "$baseline" "$now"
