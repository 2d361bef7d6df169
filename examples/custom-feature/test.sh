#!/usr/bin/env bash
# Builds the user package's own dynamic library as the README's "Exposing your own features"
# says (its Package.swift and build command are the README's, but for the dependency by path),
# checks that it links without warnings, carries the Swift runtime, stays at most 24 MB with
# the default settings, has its soname and exports only the header's functions and the
# registration hook, and drives its feature from C; then runs its scenarios (scenarios/) with the three
# runners (reducerkit-check, Python's check and pytest plugin, the Swift test target, whose
# file is the README's "Cross-language testing" test), restores its saved states (snapshots/,
# one per state version: migrated 1 -> 2 -> 3) and checks its typed stubs (stubs/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
# About 23 MB as built here (unstripped: symbols and debug information included); Foundation,
# which the check is for, would add ~60 MB. The limit leaves room for the library to grow.
max_bytes=$((24 * 1024 * 1024))
# How long a scenario step waits for running effects (it returns once they are idle): a cap
# against a hang, scaled by REDUCERKIT_TEST_TIMEOUT_SCALE like every cap of the tests.
wait_ms=$(awk -v s="${REDUCERKIT_TEST_TIMEOUT_SCALE:-1}" \
  'BEGIN { s += 0; if (!(s >= 1 && s <= 1000)) s = 1; printf "%d", 10000 * s }')

# The README's Package.swift block is this package's, with the README's URL for the path.
snippets=$(mktemp -d)
trap 'rm -rf "$snippets"' EXIT
python3 "$root/scripts/readme-snippets.py" "$root/README.md" "$snippets" custom-feature >/dev/null
if ! diff -u <(sed -E 's|\.package\(url: "[^"]+", branch: "main"\)|.package(name: "ReducerKit", path: "../..")|' \
    "$snippets/Package.swift") Package.swift; then
  echo "custom-feature: Package.swift differs from the README's (above; - README, + here)" >&2
  exit 1
fi

# The README's complete scenario test is this package's test file, verbatim.
if ! diff -u "$snippets/Tests/ScoreboardTests/ScenarioTests.swift" Tests/ScoreboardTests/ScenarioTests.swift; then
  echo "custom-feature: Tests/ScoreboardTests/ScenarioTests.swift differs from the README's (above)" >&2
  exit 1
fi

# The README's build command; the version script is the checkout's (a path dependency has no
# .build/checkouts/ReducerKit).
sed 's|\.build/checkouts/ReducerKit/|../../|g' "$snippets/build.sh" > "$snippets/build-here.sh"
grep -q -- "--version-script=../../include/reducerkit.map" "$snippets/build-here.sh" \
  || { echo "custom-feature: the README's build command has no version script" >&2; exit 1; }
bash -e "$snippets/build-here.sh" 2>&1 | tee "$snippets/build.log"
if grep -q "warning:" "$snippets/build.log"; then
  echo "custom-feature: the build printed warnings (above)" >&2
  exit 1
fi
lib="$here/.build/release"
if readelf -d "$lib/libscoreboard.so" | grep NEEDED | grep -qE 'libswift|libFoundation'; then
  echo "libscoreboard.so depends on the Swift runtime" >&2
  exit 1
fi
soname=$(readelf -d "$lib/libscoreboard.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != libscoreboard.so ]; then
  echo "custom-feature: libscoreboard.so has soname '$soname', not libscoreboard.so" >&2; exit 1
fi
expected=$( { sed -nE 's/^RK_API[^(]*[ *](rk_[a-z0-9_]+) *\(.*/\1/p' "$root/include/reducerkit.h"; \
  echo reducerkit_register_features; } | sort)
exported=$(nm -D --defined-only "$lib/libscoreboard.so" | awk '$2 ~ /^[A-Z]$/ { print $3 }' | sort)
if [ "$exported" != "$expected" ]; then
  diff <(echo "$expected") <(echo "$exported") || true
  echo "custom-feature: libscoreboard.so exports other symbols than the header's functions and the hook (< expected, > exported)" >&2
  exit 1
fi
echo "custom-feature: libscoreboard.so: soname $soname, exports the $(($(wc -l <<<"$expected") - 1)) header functions and the hook only"
size=$(stat -L -c %s "$lib/libscoreboard.so")
echo "custom-feature: libscoreboard.so is $(( (size + 500000) / 1000000 )) MB ($size bytes; at most $max_bytes)"
if [ "$size" -gt "$max_bytes" ]; then
  echo "custom-feature: libscoreboard.so is larger than 24 MB: is Foundation linked in?" >&2
  exit 1
fi
# The README's figures (MB: 10^6 bytes) are this build's, give or take 1 MB.
mb=$(( (size + 500000) / 1000000 ))
for said in "$(sed -n 's/.*libscoreboard\.so` (about \([0-9]*\) MB.*/\1/p' "$root/README.md")" \
    "$(tr '\n' ' ' < "$root/README.md" | sed -n 's/.*a user library per "Exposing your own features" *\([0-9]*\) MB without it.*/\1/p')"; do
  if [ -z "$said" ] || [ $((said - mb)) -gt 1 ] || [ $((mb - said)) -gt 1 ]; then
    echo "custom-feature: the README says libscoreboard.so is '$said' MB; it is $mb MB: update README.md" >&2
    exit 1
  fi
done
mkdir -p "$root/build/examples"
cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$root/include" driver.c \
  -L"$lib" -lscoreboard -Wl,-rpath,"$lib" -o "$root/build/examples/scoreboard_driver"
"$root/build/examples/scoreboard_driver"
# Again with every encode and decode run by both of the library's codecs and compared (a
# difference stops the driver with a report).
REDUCERKIT_WIRE_CHECK=1 "$root/build/examples/scoreboard_driver"

# The package's own scenarios (scenarios/*.scenario.json) in the three runners, and a wrong
# one that each must fail.
check="$root/build/reducerkit-check"
"$check" --lib "$lib/libscoreboard.so" --timeout-ms "$wait_ms" scenarios
status=0; "$check" --lib "$lib/libscoreboard.so" --timeout-ms "$wait_ms" scenarios/wrong/*.wrong.json >"$snippets/wrong.log" || status=$?
if [ "$status" -ne 1 ]; then
  cat "$snippets/wrong.log"; echo "custom-feature: reducerkit-check did not fail the wrong scenario (exit $status)" >&2; exit 1
fi
export PYTHONPATH="$root/bindings/python/src${PYTHONPATH:+:$PYTHONPATH}"
python3 -m reducerkit --lib "$lib/libscoreboard.so" check --timeout-ms "$wait_ms" scenarios
status=0; python3 -m reducerkit --lib "$lib/libscoreboard.so" check --timeout-ms "$wait_ms" scenarios/wrong/*.wrong.json >"$snippets/wrong.log" || status=$?
if [ "$status" -ne 1 ]; then
  cat "$snippets/wrong.log"; echo "custom-feature: python -m reducerkit check did not fail the wrong scenario (exit $status)" >&2; exit 1
fi
# The saved states (snapshots/, one per state version) still restore with this library, the
# older ones migrated; one whose migration fails is refused, naming it.
python3 -m reducerkit --lib "$lib/libscoreboard.so" snapshots check snapshots
status=0; python3 -m reducerkit --lib "$lib/libscoreboard.so" snapshots check snapshots/wrong >"$snippets/wrong.log" || status=$?
if [ "$status" -ne 1 ] || ! grep -q 'migration from state_version 1 to 2 failed at "/homeScore"' "$snippets/wrong.log"; then
  cat "$snippets/wrong.log"; echo "custom-feature: snapshots check did not refuse snapshots/wrong with its migration (exit $status)" >&2; exit 1
fi
# The schema gate: from state version 2 (schemas/, as rk_features() listed it) nothing breaks
# (a field added with a state_version bump); from version 1 the renamed scores break hosts.
python3 -m reducerkit schema diff schemas/scoreboard-v2.json "$lib/libscoreboard.so"
status=0; python3 -m reducerkit schema diff schemas/scoreboard-v1.json "$lib/libscoreboard.so" >"$snippets/wrong.log" || status=$?
if [ "$status" -ne 1 ] || ! grep -q "BREAKING  state /homeScore: field removed" "$snippets/wrong.log"; then
  cat "$snippets/wrong.log"; echo "custom-feature: schema diff did not flag the renamed scores (exit $status)" >&2; exit 1
fi
# The pytest plugin (its pytest11 entry point when the package is installed, else -p).
plugin=$(python3 -c 'import importlib.metadata as m; print("" if any(e.value == "pytest_reducerkit" for e in m.entry_points(group="pytest11")) else "-p reducerkit.testing.plugin")')
# shellcheck disable=SC2086
python3 -m pytest -q -p no:cacheprovider $plugin --reducerkit-lib "$lib/libscoreboard.so" \
  --reducerkit-timeout "$(awk -v ms="$wait_ms" 'BEGIN { print ms / 1000 }')" scenarios
# The Swift runner (Tests/ScoreboardTests): the same scenarios against Feature.scoreboard.
swift build --build-tests 2>&1 | tee "$snippets/build-tests.log" | grep -E "error|warning:" || true
if grep -qE "error:|warning:" "$snippets/build-tests.log"; then
  echo "custom-feature: the tests built with errors or warnings (above)" >&2; exit 1
fi
swift test --skip-build 2>&1 | tee "$snippets/test.log" | grep -E "✔|✘|━|passed|failed|scenario \"" || true
grep -q "Test run with .* passed" "$snippets/test.log" || { echo "custom-feature: swift test failed" >&2; exit 1; }
echo "custom-feature: the scenarios pass in Swift, C and Python"

# Typed stubs of the package's feature: Python (mypy --strict) and C (-Werror), right and wrong.
bash "$root/scripts/test-stubs.sh" "$lib/libscoreboard.so" stubs
