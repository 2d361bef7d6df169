#!/usr/bin/env bash
# The README's C install, as a new user follows it: `make install PREFIX=<a temporary dir>`,
# then `cc examples/c/counter.c $(pkg-config --cflags --libs reducerkit)` builds a program that
# runs from anywhere with no environment variable, and runs clean under valgrind with the
# installed suppression file; `make uninstall` removes every installed file. Also: the library's soname and exports (only the header's functions and the
# registration hook), and the build tree's soname link for programs linked -Lbuild.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cc=${CC:-cc}
version=$(sed -n 's/^#define RK_VERSION_STRING "\(.*\)"/\1/p' include/reducerkit.h)
major=${version%%.*}

fail() { echo "test-install: $*" >&2; exit 1; }

# -- the library: soname, exports ---------------------------------------------------------
soname=$(readelf -d build/libreducerkit.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libreducerkit.so.$major" ] || fail "build/libreducerkit.so has soname '$soname'"
[ "$(readlink build/libreducerkit.so.$major)" = libreducerkit.so ] \
  || fail "build/libreducerkit.so.$major is not a link to libreducerkit.so"
header_functions=$(sed -nE 's/^RK_API[^(]*[ *](rk_[a-z0-9_]+) *\(.*/\1/p' include/reducerkit.h | sort)
[ "$(wc -l <<<"$header_functions")" -ge 20 ] || fail "found too few functions in the header"
expected=$(printf '%s\nreducerkit_register_features\n' "$header_functions" | sort)
exported=$(nm -D --defined-only build/libreducerkit.so | awk '$2 ~ /^[A-Z]$/ { print $3 }' | sort)
if [ "$exported" != "$expected" ]; then
  diff <(echo "$expected") <(echo "$exported") || true
  fail "build/libreducerkit.so exports other symbols than the header's functions (< expected, > exported)"
fi
echo "test-install: libreducerkit.so: soname $soname, exports the $(wc -l <<<"$header_functions") header functions and the registration hook only"
# The README's size (MB: 10^6 bytes) is this build's, give or take 1 MB.
mb=$(( ($(stat -c %s build/libreducerkit.so) + 500000) / 1000000 ))
said=$(tr '\n' ' ' < README.md | sed -n 's/.*`libreducerkit\.so` is \([0-9]*\) MB.*/\1/p')
[ -n "$said" ] && [ $((said - mb)) -le 1 ] && [ $((mb - said)) -le 1 ] \
  || fail "the README says libreducerkit.so is '$said' MB; it is $mb MB: update README.md"

# Programs linked in the build tree ask for the soname, which build/ carries.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cc" -std=c99 -Iinclude examples/c/counter.c -Lbuild -lreducerkit -Wl,-rpath,"$root/build" -o "$tmp/in-tree"
readelf -d "$tmp/in-tree" | grep -q "NEEDED.*\[libreducerkit.so.$major\]" \
  || fail "a program linked -Lbuild -lreducerkit does not ask for libreducerkit.so.$major"
(cd / && "$tmp/in-tree" >/dev/null) || fail "a program linked -Lbuild -lreducerkit does not run"

# -- make install / uninstall -------------------------------------------------------------
prefix=$tmp/prefix
make --no-print-directory -s install PREFIX="$prefix" >/dev/null
installed=$(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
want=$(printf '%s\n' bin/reducerkit-check include/reducerkit.h "lib/libreducerkit.so" \
  "lib/libreducerkit.so.$major" "lib/libreducerkit.so.$version" lib/pkgconfig/reducerkit.pc \
  share/reducerkit/valgrind.supp | sort)
[ "$installed" = "$want" ] || { diff <(echo "$want") <(echo "$installed") || true; fail "installed files differ (< expected, > installed)"; }
[ "$(readlink "$prefix/lib/libreducerkit.so")" = "libreducerkit.so.$major" ] \
  && [ "$(readlink "$prefix/lib/libreducerkit.so.$major")" = "libreducerkit.so.$version" ] \
  && [ -f "$prefix/lib/libreducerkit.so.$version" ] && [ ! -L "$prefix/lib/libreducerkit.so.$version" ] \
  || fail "the installed links are not libreducerkit.so -> .so.$major -> .so.$version"
cmp -s build/libreducerkit.so "$prefix/lib/libreducerkit.so.$version" || fail "the installed library is not build/libreducerkit.so"
echo "test-install: make install PREFIX=<tmp> installed:"; sed 's/^/  /' <<<"$installed"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion reducerkit)" = "$version" ] || fail "pkg-config --modversion reducerkit"
flags=$(pkg-config --cflags --libs reducerkit)
# As the README says, from another directory (a copy of the example, nothing from the checkout).
mkdir "$tmp/app"
cp examples/c/counter.c "$tmp/app/app.c"
(cd "$tmp/app" && "$cc" -std=c99 -Wall -Wextra -Werror app.c $flags -o app) \
  || fail "cc app.c \$(pkg-config --cflags --libs reducerkit) failed (flags: $flags)"
grep -q "$prefix/lib" < <(ldd "$tmp/app/app" | grep libreducerkit) \
  || fail "the program does not load the installed library: $(ldd "$tmp/app/app" | grep libreducerkit)"
out=$(cd / && env -u LD_LIBRARY_PATH "$tmp/app/app") || fail "the pkg-config-built program failed"
grep -q '"count":41' <<<"$out" || fail "unexpected output from the pkg-config-built program: $out"
echo "test-install: cc app.c \$(pkg-config --cflags --libs reducerkit) builds a program that runs ($flags)"

# valgrind as the README says, with the installed suppressions: nothing reported for a correct
# program (without them, the Swift runtime's caches show as "possibly lost", and two benign
# reads of its own as errors). Also a program whose effects run on the runtime's threads.
cp examples/c/requests_callback.c "$tmp/app/threads.c"
(cd "$tmp/app" && "$cc" -std=c99 -Wall -Wextra -Werror threads.c $flags -lpthread -o threads) \
  || fail "cc threads.c \$(pkg-config --cflags --libs reducerkit) failed"
for program in app threads; do
  status=0
  (cd / && valgrind --fair-sched=yes --leak-check=full --error-exitcode=99 \
    --suppressions="$prefix/share/reducerkit/valgrind.supp" "$tmp/app/$program") \
    >/dev/null 2>"$tmp/valgrind.log" || status=$?
  if [ $status -ne 0 ] || ! grep -q "ERROR SUMMARY: 0 errors" "$tmp/valgrind.log" \
      || grep -E "(definitely|indirectly|possibly) lost: [1-9]" "$tmp/valgrind.log"; then
    cat "$tmp/valgrind.log"; fail "valgrind with share/reducerkit/valgrind.supp reported errors or leaks for $program (exit $status)"
  fi
done
echo "test-install: valgrind --leak-check=full --suppressions=PREFIX/share/reducerkit/valgrind.supp reports nothing"

# The installed scenario runner loads the installed library by default (../lib beside bin/).
# (A step waits for effects until they are idle, for at most 10 s scaled like the tests' caps.)
wait_ms=$(awk -v s="${REDUCERKIT_TEST_TIMEOUT_SCALE:-1}" \
  'BEGIN { s += 0; if (!(s >= 1 && s <= 1000)) s = 1; printf "%d", 10000 * s }')
out=$(cd / && env -u LD_LIBRARY_PATH -u REDUCERKIT_LIB "$prefix/bin/reducerkit-check" \
  --timeout-ms "$wait_ms" "$root/Tests/scenarios/counter_basics.scenario.json") || fail "the installed reducerkit-check failed: $out"
grep -q '^1 passed, 0 failed$' <<<"$out" || fail "unexpected output from the installed reducerkit-check: $out"
echo "test-install: the installed bin/reducerkit-check runs a scenario against the installed library"

make --no-print-directory -s uninstall PREFIX="$prefix" >/dev/null
left=$(cd "$prefix" && find . \( -type f -o -type l \))
[ -z "$left" ] || fail "make uninstall left: $left"
echo "test-install: make uninstall removed every installed file"

# Install paths that are not absolute are an error (the .pc file records them).
status=0
out=$(make --no-print-directory -s install PREFIX=relative/dir 2>&1) || status=$?
[ $status -ne 0 ] && grep -qF "install paths must be absolute" <<<"$out" \
  || fail "make install PREFIX=relative/dir: expected an error, got: $out"
[ ! -e relative ] || fail "make install PREFIX=relative/dir created files"
echo "test-install: passed"
