# ReducerKit (`make help` prints this).
#
# The tiers:
#   make check     the inner loop: a few minutes on a warm build, installs nothing. The Swift tests,
#                  the C tests (no valgrind) and the scenarios, pytest from the tree, and the
#                  @_cdecl exports against include/reducerkit.h.
#   make test      every suite (CI runs `make deps` then this; ~21 min, in three lanes side by
#                  side; TEST_JOBS=1 runs them one after another): check's, plus both codecs
#                  compared, valgrind, the examples, the install paths, typed stubs, the docs and
#                  20 s of each fuzzer, and the instruction-count gate (make bench-check).
#   make test-all  make test, then the sanitizers (test-asan, test-tsan: instrumented builds).
#   make deps      installs what the tests need and is missing (apt-get; pip into python3):
#                  the only target that changes the machine.
# One suite: make test-swift, test-c, test-valgrind, test-python, test-exports, test-examples,
#   test-custom, test-stubs, test-embed, test-user-package, test-install, test-wheel, test-docs.
#   One C test case: build/c/test_requests "a replaced callback" (--list lists the cases).
# Building: make lib (build/libreducerkit.so), make (also build/reducerkit-check, the C scenario
#   runner), make wheel, make install PREFIX=... / make uninstall, make docs (build/docs),
#   make generate-wire (after changing a shipped feature's state or actions).
# Running: make demo, make bench (also bench-ir, bench-scaling, bench-inspector), make bench-check (the
#   instruction-count gate, in make test), make fuzz FUZZ_SECONDS=N.

SWIFT      ?= swift
SWIFTC     ?= swiftc
CC         ?= cc
PYTHON     ?= python3
BUILD      := build
LIB        := $(BUILD)/libreducerkit.so
# The version is written once, in the header; the soname follows from it.
VERSION    := $(shell sed -n 's/^\#define RK_VERSION_STRING "\(.*\)"/\1/p' include/reducerkit.h)
SONAME     := libreducerkit.so.$(firstword $(subst ., ,$(VERSION)))
# The linker version script (committed: a user's own feature library links with it too).
LIB_MAP    := include/reducerkit.map
# The shipped library: release, the Swift runtime and Foundation linked in statically, without
# the IdentifiedCollections trait (that package imports Foundation and ICU, ~70 MB).
SWIFT_LIB_FLAGS := -c release --scratch-path .build-lib -Xswiftc -static-stdlib --disable-default-traits \
              -Xlinker --version-script=$(abspath $(LIB_MAP)) -Xlinker -soname=$(SONAME)
# The repository's own Swift builds (tests, benchmarks, docs) build forEach over IdentifiedArray.
SWIFT_TRAITS := --traits IdentifiedCollections
CFLAGS_C   := -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -Itools
CTESTS     := $(patsubst Tests/c/%.c,$(BUILD)/c/%,$(wildcard Tests/c/test_*.c))
CEXAMPLES  := $(patsubst examples/c/%.c,$(BUILD)/examples/%_c,$(wildcard examples/c/*.c))
TEST_VENV  := $(BUILD)/venv
RUN_PY     := REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(PYTHON)
FUZZ_SECONDS ?= 20
# The settings the scripts/ take (scripts/env.sh). Not exported to every recipe: SwiftPM would
# compile its C targets with $(CC).
SCRIPT_ENV := SWIFT="$(SWIFT)" SWIFTC="$(SWIFTC)" SWIFT_TRAITS="$(SWIFT_TRAITS)" PYTHON="$(PYTHON)" BUILD=$(BUILD)
C_ENV      := CC="$(CC)" CXX="$(CXX)" CFLAGS_C="$(CFLAGS_C)"

.PHONY: all help lib deps check test test-all test-swift test-c test-valgrind test-exports test-examples \
        test-custom test-stubs test-user-package test-python test-embed test-install test-wheel test-docs \
        test-asan test-tsan test-fuzz fuzz demo bench bench-scaling bench-ir bench-check wheel install uninstall \
        docs docs-swift docs-python clean generate-wire

all: lib $(BUILD)/reducerkit-check

help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' Makefile

deps:
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh

# ---- The tiers ----------------------------------------------------------------------------

check: lib $(CTESTS) $(BUILD)/reducerkit-check test-exports
	@$(PYTHON) -c 'import pytest, hypothesis, jsonschema' 2>/dev/null || { echo "make check: pytest, hypothesis" \
	  "and jsonschema are missing: run make deps" >&2; exit 1; }
	$(SWIFT) build --build-tests $(SWIFT_TRAITS) && $(SWIFT) test --skip-build $(SWIFT_TRAITS)
	$(SCRIPT_ENV) $(C_ENV) bash scripts/test-c.sh --quick
	cd bindings/python && REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=src $(PYTHON) -m pytest -q -x tests
	@echo "make check: passed (make test runs every suite)"

# make test runs its suites in three lanes side by side (TEST_JOBS=1: one lane after another).
# A lane runs its suites one after another; each suite's output goes to build/test-logs/SUITE.log
# and is printed whole when the suite ends. Lanes share no build directory: the root package's
# debug build (Swift tests, docs, then the fuzz build), the custom feature's package (its
# release and debug builds), and the C and Python suites on the built library. What two lanes
# would both build is built first.
TEST_JOBS ?= 3
SWIFT_LANE := test-swift test-docs test-exports test-user-package test-fuzz
CUSTOM_LANE := test-custom
HOST_LANE := test-c test-valgrind test-examples test-python test-stubs test-embed test-install test-wheel \
             bench-check
test: lib $(CTESTS) $(CEXAMPLES) $(BUILD)/reducerkit-check $(BUILD)/bench/codec_ir
	@mkdir -p $(BUILD)/test-logs
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) test-lane-swift test-lane-custom test-lane-host
	@echo "make test: all suites passed"

define run_lane
	@for t in $(1); do \
	  start=$$(date +%s); status=0; \
	  $(MAKE) --no-print-directory $$t > $(BUILD)/test-logs/$$t.log 2>&1 < /dev/null || status=$$?; \
	  cat $(BUILD)/test-logs/$$t.log; \
	  if [ $$status -ne 0 ]; then echo "== make $$t: FAILED (exit $$status; $(BUILD)/test-logs/$$t.log)"; exit 1; fi; \
	  echo "== make $$t: passed ($$(( $$(date +%s) - start )) s)"; \
	done
endef
.PHONY: test-lane-swift test-lane-custom test-lane-host
test-lane-swift:
	$(call run_lane,$(SWIFT_LANE))
test-lane-custom:
	$(call run_lane,$(CUSTOM_LANE))
test-lane-host:
	$(call run_lane,$(HOST_LANE))

test-all: test test-tsan test-asan
	@echo "make test-all: all suites passed"

# ---- The library and the C scenario runner -------------------------------------------------

lib: $(LIB) $(BUILD)/$(SONAME)

# SwiftPM does not see the version script as an input: the old product is removed so that a
# changed script relinks. The copy replaces build/'s atomically (a process may have it mapped),
# and the library must need no Swift runtime library.
$(LIB): Package.swift $(shell find Sources -type f) include/reducerkit.h $(LIB_MAP)
	rm -f .build-lib/release/libreducerkit.so
	$(SWIFT) build $(SWIFT_LIB_FLAGS) --product reducerkit
	@mkdir -p $(BUILD)
	cp .build-lib/release/libreducerkit.so $(LIB).tmp && strip --strip-debug $(LIB).tmp && mv -f $(LIB).tmp $(LIB)
	ln -sfn libreducerkit.so $(BUILD)/$(SONAME)
	@echo "built $(LIB): $$(du -h $(LIB) | cut -f1); NEEDED: $$(readelf -d $(LIB) | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
	@! readelf -d $(LIB) | grep NEEDED | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' \
	  || { echo "error: $(LIB) depends on the Swift runtime" >&2; exit 1; }

# Programs linked with -Lbuild -lreducerkit ask for the soname at run time.
$(BUILD)/$(SONAME):
	@mkdir -p $(BUILD) && ln -sfn libreducerkit.so $@

$(LIB_MAP): include/reducerkit.h scripts/export-map.sh
	bash scripts/export-map.sh $< > $@.tmp && mv -f $@.tmp $@

# tools/reducerkit-check.c uses reducerkit.h alone and dlopens the library (--lib PATH; by
# default libreducerkit.so.0 beside it or in ../lib, where `make install` puts it).
$(BUILD)/reducerkit-check: tools/reducerkit-check.c tools/json_mini.h include/reducerkit.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS_C) -O2 -o $@ $< -ldl -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib'

# The shipped features' WireCodable shapes: what @Wire writes for them, committed so that building
# the library needs no swift-syntax (WireGeneratedTests, in test-swift, fails when it is stale).
generate-wire:
	$(SWIFT) run $(SWIFT_TRAITS) reducerkit-wire-gen Sources/ReducerKitExamples

# ---- Suites -------------------------------------------------------------------------------

# The Swift tests, then the Wire tests on the reference codec (fast paths off), then every test
# with each encode and decode run by both codecs and compared, then the stack guard's tests alone.
test-swift:
	$(SWIFT) build --build-tests $(SWIFT_TRAITS) && $(SWIFT) test --skip-build $(SWIFT_TRAITS)
	REDUCERKIT_WIRE_FAST_PATHS=0 $(SWIFT) test --skip-build $(SWIFT_TRAITS) --filter ReducerKitWireTests
	REDUCERKIT_WIRE_CHECK=1 $(SWIFT) test --skip-build $(SWIFT_TRAITS)
	# The stack guard alone in fresh processes: nothing warm yet (the first error on a thread
	# instantiates runtime metadata), where the whole run had hidden a crash.
	for mode in FAST_PATHS=1 FAST_PATHS=0 CHECK=1; do \
	  env REDUCERKIT_WIRE_$$mode $(SWIFT) test --skip-build $(SWIFT_TRAITS) --filter StackTests || exit 1; done

$(BUILD)/c/%: Tests/c/%.c Tests/c/rk_test.h tools/json_mini.h tools/reducerkit-check.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/c
	$(CC) $(CFLAGS_C) -g -o $@ $< -L$(BUILD) -lreducerkit -lpthread -Wl,-rpath,'$$ORIGIN/..'

# The C tests, both codecs, and the C scenario runner's verdicts (scripts/test-c.sh says which).
test-c: $(CTESTS) $(BUILD)/reducerkit-check
	$(SCRIPT_ENV) $(C_ENV) bash scripts/test-c.sh

test-valgrind: $(CTESTS)
	$(SCRIPT_ENV) bash scripts/test-c.sh --valgrind

# Every @_cdecl export in Sources/ against its prototype in include/reducerkit.h.
test-exports:
	$(PYTHON) scripts/check-exports.py

$(BUILD)/examples/%_c: examples/c/%.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/examples
	$(CC) $(CFLAGS_C) -o $@ $< -L$(BUILD) -lreducerkit -lpthread -Wl,-rpath,'$$ORIGIN/..'

# Every C example runs from another directory (the rpath); those that check results exit non-zero.
test-examples: $(CEXAMPLES)
	@set -e; for e in $(CEXAMPLES); do echo "== $$e"; (cd / && $(abspath .)/$$e); done

# The package is installed into a venv of this checkout (build/venv, seeing the interpreter's
# packages: pytest, hypothesis, mypy), not into the caller's interpreter.
test-python: lib $(BUILD)/reducerkit-check
	cd bindings/python && $(PYTHON) -m mypy --strict src/reducerkit
	@[ -x $(TEST_VENV)/bin/python ] || $(PYTHON) -m venv --system-site-packages $(TEST_VENV)
	$(TEST_VENV)/bin/python -m pip install -q ./bindings/python
	cd bindings/python && REDUCERKIT_LIB=$(abspath $(LIB)) REDUCERKIT_REQUIRE_SPEEDUPS=1 $(abspath $(TEST_VENV))/bin/python -m pytest -q tests

# One store, two languages, one process: C owns a store, embedded CPython borrows it.
PYTHON_CONFIG ?= $(PYTHON)-config
test-embed: lib
	@mkdir -p $(BUILD)/c
	$(CC) -std=c99 -Wall -Wextra -Werror $$($(PYTHON_CONFIG) --includes) -Iinclude Tests/embed/embed_python.c \
	  -o $(BUILD)/c/embed_python -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..' $$($(PYTHON_CONFIG) --ldflags --embed)
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(BUILD)/c/embed_python

# Typed stubs (python -m reducerkit stubs): mypy and cc accept Tests/stubs/good.*, reject bad_*.
test-stubs: lib
	bash scripts/test-stubs.sh $(LIB) Tests/stubs

# A user's package that depends on ReducerKitTesting alone: wrong expectations must fail it.
test-user-package:
	bash scripts/test-user-package.sh

test-custom: lib $(BUILD)/reducerkit-check
	bash examples/custom-feature/test.sh

# The README's install paths as a new user follows them, and a smoke check of `make docs`.
test-install: lib
	bash scripts/test-install.sh
test-wheel: lib
	bash scripts/test-wheel.sh
test-docs:
	bash scripts/test-docs.sh

# Sanitizers and fuzzers: their recipes are scripts/sanitizers.sh and scripts/fuzz.sh.
test-asan:
	$(SCRIPT_ENV) bash scripts/sanitizers.sh asan
test-tsan:
	$(SCRIPT_ENV) bash scripts/sanitizers.sh tsan
fuzz:
	$(SCRIPT_ENV) bash scripts/fuzz.sh $(FUZZ_SECONDS)
test-fuzz:
	$(SCRIPT_ENV) bash scripts/fuzz.sh 20

# ---- Running: the demo and the benchmarks --------------------------------------------------

demo: lib $(BUILD)/examples/counter_c
	$(SWIFT) run -c release --scratch-path .build-demo reducerkit-demo
	$(BUILD)/examples/counter_c
	$(RUN_PY) examples/python/demo.py
	$(RUN_PY) examples/python/host_effects.py

bench: lib $(BUILD)/bench/c_bench
	$(SWIFT) run -c release $(SWIFT_TRAITS) --scratch-path .build-bench reducerkit-bench
	$(BUILD)/bench/c_bench
	$(RUN_PY) benchmarks/python/bench.py
	$(RUN_PY) benchmarks/python/snapshots.py $(addprefix --scoreboard ,$(wildcard examples/custom-feature/.build/release/libscoreboard.so))
	$(MAKE) --no-print-directory bench-scaling
	$(MAKE) --no-print-directory bench-inspector

# The inspector on a 100,000-step todos recording against issue 23's targets (headless Chromium).
.PHONY: bench-inspector
bench-inspector: lib
	$(RUN_PY) benchmarks/inspector.py

# Observation cost against state size (C and Python, pydux beside them): prints the table and
# writes benchmarks/results/scaling.{md,json,png}. Its packages go into a venv of this checkout.
BENCH_VENV := $(BUILD)/bench-venv
bench-scaling: lib $(BUILD)/bench/c_scaling
	@[ -x $(BENCH_VENV)/bin/python ] || $(PYTHON) -m venv --system-site-packages $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -q -r benchmarks/requirements.txt ./bindings/python
	REDUCERKIT_LIB=$(abspath $(LIB)) $(BENCH_VENV)/bin/python benchmarks/scaling.py --c $(BUILD)/bench/c_scaling

# Instructions per operation (callgrind; repeatable under load): benchmarks/README.md.
bench-ir: lib $(BUILD)/bench/codec_ir
	sh benchmarks/ir.sh $(BUILD)/bench/codec_ir

# The regression gate (run by make test, ~20 s): fails when a bench-ir row is more than 5 %
# above benchmarks/ir-baseline.txt. Updating the baseline on purpose: benchmarks/README.md.
bench-check: lib $(BUILD)/bench/codec_ir
	sh benchmarks/ir-check.sh $(BUILD)/bench/codec_ir benchmarks/ir-baseline.txt

# build/bench/c_bench and c_scaling from benchmarks/c/bench.c and scaling.c; codec_ir; and
# churn_search (RSS over a million destroyed stores, cited by Tests/sanitizers/lsan.supp).
$(BUILD)/bench/c_%: benchmarks/c/%.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) $(CFLAGS_C) -O2 -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'
$(BUILD)/bench/%: benchmarks/c/%.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) $(CFLAGS_C) -O2 -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

# ---- Shipping: the wheel, make install, the reference docs ---------------------------------

# dist/reducerkit-VERSION-cp311-abi3-manylinux_2_NN_ARCH.whl, carrying the library and
# reducerkit-check (bindings/python/setup.py builds them in; pip builds it in an isolated
# environment). auditwheel gives it the manylinux tag its glibc symbols allow (grafting nothing).
DIST       := dist
wheel: lib
	rm -rf $(DIST)/reducerkit-*.whl $(BUILD)/wheel bindings/python/build  # setuptools would reuse an old build
	@$(PYTHON) -c 'import auditwheel' 2>/dev/null && command -v patchelf >/dev/null || { echo "error: make wheel" \
	  "tags the wheel with auditwheel, which needs patchelf: run make deps" >&2; exit 1; }
	$(PYTHON) -m pip wheel -q --no-deps --wheel-dir $(BUILD)/wheel ./bindings/python
	$(PYTHON) -m auditwheel repair --wheel-dir $(DIST) $(BUILD)/wheel/reducerkit-*.whl
	@ls -l $(DIST)/reducerkit-$(VERSION)-*.whl

# make install PREFIX=/opt/reducerkit (default /usr/local; LIBDIR, INCLUDEDIR, BINDIR,
# PKGCONFIGDIR, DATADIR; DESTDIR stages): scripts/install.sh lists the files.
install: lib $(BUILD)/reducerkit-check
	@bash scripts/install.sh install
uninstall:
	@bash scripts/install.sh uninstall

# build/docs/swift/MODULE (DocC, from `swift package dump-symbol-graph`) and build/docs/python (pdoc).
DOCC_MODULES := ReducerKit ReducerKitTesting ReducerKitHost ReducerKitHostTesting ReducerKitFFI
docs: docs-swift docs-python
	@echo "docs: build/docs/python/index.html; Swift: build/docs/swift/<module> (serve it:" \
	  "$(PYTHON) -m http.server -d build/docs/swift/ReducerKit, open /documentation/reducerkit)"
docs-swift:
	bash scripts/docs-swift.sh $(BUILD)/docs/swift $(DOCC_MODULES)
docs-python:
	@$(PYTHON) -c 'import pdoc, hypothesis' 2>/dev/null || { echo "make docs-python needs pdoc and hypothesis: run make deps" >&2; exit 1; }
	rm -rf $(BUILD)/docs/python
	PYTHONPATH=bindings/python/src $(PYTHON) scripts/docs-python.py $(BUILD)/docs/python

clean:
	rm -rf $(BUILD) $(DIST) .build .build-lib .build-bench .build-demo .build-docs
