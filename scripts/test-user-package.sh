#!/usr/bin/env bash
# Builds Tests/UserPackage — a package set up exactly as the README's install snippet says —
# against this checkout, and checks from outside that TestStore failures fail the user's tests:
# the correct tests pass, each deliberately wrong one makes `swift test` exit non-zero with its
# diff, in Swift Testing and in XCTest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build/user-package"
mkdir -p "$work"
# The README's snippet names the package "ReducerKit"; a local path's identity is its last
# component, so link this checkout under that name.
ln -sfn "$root" "$work/ReducerKit"
rm -rf "$work/app/Sources" "$work/app/Tests"
mkdir -p "$work/app"
cp -R "$root/Tests/UserPackage/Package.swift" "$root/Tests/UserPackage/Sources" \
  "$root/Tests/UserPackage/Tests" "$work/app/"
cd "$work/app"
swift build --build-tests -q

run() {  # run NAME FILTER EXPECTED_STATUS TEXT...
  local name=$1 filter=$2 expect=$3; shift 3
  local out status=0
  out=$(swift test --skip-build --filter "$filter" 2>&1) || status=$?
  if [ "$expect" = pass ] && [ $status -ne 0 ]; then
    echo "$out"; echo "user package: '$name' should pass but swift test exited $status"; exit 1
  fi
  if [ "$expect" = fail ] && [ $status -eq 0 ]; then
    echo "$out"; echo "user package: '$name' is wrong on purpose but swift test exited 0 (a false green)"; exit 1
  fi
  for text in "$@"; do
    if ! grep -qF -- "$text" <<<"$out"; then
      echo "$out"; echo "user package: '$name' output lacks: $text"; exit 1
    fi
  done
  if grep -qF "without linking the Testing framework" <<<"$out"; then
    echo "$out"; echo "user package: '$name': issue reporting is not linked"; exit 1
  fi
  echo "user package: $name: $expect as expected"
}

run "correct tests" 'passes\(\)|testPasses' pass
run "Swift Testing, wrong state" 'wrongStateExpectation\(\)' fail \
  "A state change does not match expectation" "count: 5"
run "Swift Testing, unasserted action" 'unassertedReceivedAction' fail "timerTick"
run "XCTest, wrong state" 'testWrongStateExpectation' fail \
  "A state change does not match expectation" "count: 5"
