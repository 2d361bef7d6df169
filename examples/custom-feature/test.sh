#!/usr/bin/env bash
# Builds the user package's own dynamic library and drives its feature from C.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
swift build -c release -Xswiftc -static-stdlib --product scoreboard
lib="$here/.build/release"
if readelf -d "$lib/libscoreboard.so" | grep NEEDED | grep -qE 'libswift|libFoundation'; then
  echo "libscoreboard.so depends on the Swift runtime" >&2
  exit 1
fi
mkdir -p "$root/build/examples"
cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$root/include" driver.c \
  -L"$lib" -lscoreboard -Wl,-rpath,"$lib" -o "$root/build/examples/scoreboard_driver"
"$root/build/examples/scoreboard_driver"
# Again with every encode and decode run by both of the library's codecs and compared (a
# difference stops the driver with a report).
REDUCERKIT_WIRE_CHECK=1 "$root/build/examples/scoreboard_driver"
