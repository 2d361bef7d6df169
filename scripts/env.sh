# Sourced by the scripts the Makefile runs (test-c.sh, sanitizers.sh, fuzz.sh): the checkout,
# the tools (the Makefile passes its settings; these defaults are its own), and caps.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
SWIFT=${SWIFT:-swift}
SWIFTC=${SWIFTC:-swiftc}
CC=${CC:-cc}
CXX=${CXX:-c++}
PYTHON=${PYTHON:-python3}
CFLAGS_C=${CFLAGS_C:--std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -Itools}

# MS milliseconds times REDUCERKIT_TEST_TIMEOUT_SCALE (from 1 to 1000, default 1: e.g. 5 beside
# other builds), as Tests/c/rk_test.h scales its caps. A cap only turns a hang into a failure.
scaled_ms() {
  awk -v ms="$1" -v s="${REDUCERKIT_TEST_TIMEOUT_SCALE:-}" \
    'BEGIN { s += 0; if (!(s >= 1 && s <= 1000)) s = 1; printf "%d", ms * s }'
}

# The toolchain's runtime libraries, which the sanitizer and fuzzer builds link dynamically.
swift_runtime_dir() {
  echo "$(dirname "$(dirname "$(readlink -f "$(command -v "$SWIFT")")")")/lib/swift/linux"
}
# The repository's own Swift builds turn on the optional trait (the shipped library leaves it off).
SWIFT_TRAITS=${SWIFT_TRAITS:---traits IdentifiedCollections}
