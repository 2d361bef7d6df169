#!/usr/bin/env bash
# The README's Swift install, as a new user follows it: a fresh package made of the README's
# blocks, verbatim (Package.swift, the quick start's feature, its store code and its tests;
# scripts/readme-snippets.py extracts them), resolving the README's repository URL — which git
# maps to a snapshot of this checkout's working tree on a `main` branch, as `branch: "main"`
# asks. Its tests must pass, and the deliberately wrong ones of Tests/UserPackage must make
# `swift test` fail with their diffs (TestStore failures fail the user's tests), in Swift
# Testing and in XCTest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build/user-package"
app="$work/app"
mkdir -p "$work"
rm -rf "$app/Sources" "$app/Tests" "$app/Package.swift" "$app/Package.resolved" "$work/snippets"
python3 "$root/scripts/readme-snippets.py" "$root/README.md" "$work/snippets" user-package >/dev/null
mkdir -p "$app"
cp "$work/snippets/Package.swift" "$app/Package.swift"
mkdir -p "$app/Sources/App" "$app/Tests/AppTests"
cp "$work/snippets/Sources/App/Counter.swift" "$app/Sources/App/"
cp "$work/snippets/Tests/AppTests/CounterTests.swift" "$app/Tests/AppTests/"
{ printf '@testable import App\nimport ReducerKitTesting\nimport Testing\n\n'
  printf '/// The README quick start'"'"'s store code, verbatim, in an async context.\n'
  printf '@Test func quickStartUsage() async {\n'
  sed 's/^/  /' "$work/snippets/usage.swift"
  printf '}\n'; } > "$app/Tests/AppTests/QuickStartUsage.swift"
cp "$root"/Tests/UserPackage/Tests/AppTests/*.swift "$app/Tests/AppTests/"

# The README's URL, served from a snapshot of this working tree (tracked and untracked files
# that git does not ignore) committed on `main`. Fixed dates: the same tree gives the same
# commit, so an unchanged checkout does not make SwiftPM fetch and rebuild.
url=$(sed -nE 's/.*\.package\(url: "([^"]+)".*branch: "main".*/\1/p' "$app/Package.swift")
[ -n "$url" ] || { echo "user package: the README's Package.swift has no .package(url: ..., branch: \"main\")"; exit 1; }
snapshot="$work/ReducerKit-main"
rm -rf "$snapshot"
mkdir -p "$snapshot"
(cd "$root" && git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf -) | tar -xf - -C "$snapshot"
(cd "$snapshot" && git init -q -b main && git add -A \
  && GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
     git -c user.name=snapshot -c user.email=snapshot@localhost commit -q -m snapshot)
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.$snapshot.insteadOf" GIT_CONFIG_VALUE_0="$url"
echo "user package: $url (branch main) -> a snapshot of this checkout ($(git -C "$snapshot" rev-parse --short HEAD))"

cd "$app"
swift build --build-tests -q --disable-dependency-cache 2>&1 | tee "$work/build.log"
if grep -q "warning:" "$work/build.log"; then
  echo "user package: the README's package builds with warnings (above)"; exit 1
fi

run() {  # run NAME FILTER EXPECTED_STATUS TEXT...
  local name=$1 filter=$2 expect=$3; shift 3
  local out status=0
  out=$(swift test --skip-build --disable-dependency-cache --filter "$filter" 2>&1) || status=$?
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

run "the README's tests and store code" 'timer\(\)|fact\(\)|quickStartUsage\(\)' pass \
  'Test timer() passed' 'Test fact() passed' 'Test quickStartUsage() passed' '1 1 is a good number.'
run "correct tests" 'passes\(\)|testPasses' pass
run "Swift Testing, wrong state" 'wrongStateExpectation\(\)' fail \
  "A state change does not match expectation" "count: 5"
run "Swift Testing, unasserted action" 'unassertedReceivedAction' fail "timerTick"
run "XCTest, wrong state" 'testWrongStateExpectation' fail \
  "A state change does not match expectation" "count: 5"
