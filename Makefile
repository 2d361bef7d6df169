# ReducerKit — one command per job.
#   make demo    the main job: drive the example stores from Swift, C and Python, printing states
#   make test    every test: Swift, C (plus valgrind), the C examples, the user-package example, Python, 20 s of each fuzzer
#   make bench   the benchmarks (release builds)
#   make lib     build/libreducerkit.so (Swift runtime linked statically)

SWIFT      ?= swift
CC         ?= cc
PYTHON     ?= python3
BUILD      := build
LIB        := $(BUILD)/libreducerkit.so
# The shipped library: release, Swift runtime and Foundation linked in statically.
# Without the IdentifiedCollections trait: that package imports Foundation (+ICU, ~70 MB).
SWIFT_LIB_FLAGS := -c release --scratch-path .build-lib -Xswiftc -static-stdlib --disable-default-traits
CFLAGS_C   := -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude
CTESTS     := $(patsubst Tests/c/%.c,$(BUILD)/c/%,$(wildcard Tests/c/test_*.c))
VALGRIND   := valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
              --show-leak-kinds=definite --suppressions=Tests/c/valgrind.supp -q

.PHONY: bench-scaling
.PHONY: all lib deps demo test test-all test-tsan test-asan fuzz test-fuzz test-swift test-c test-valgrind test-examples test-custom test-user-package test-python test-embed bench clean

all: lib

deps:
	@bash scripts/install-deps.sh

lib: $(LIB)

$(LIB): Package.swift $(shell find Sources -type f) include/reducerkit.h
	$(SWIFT) build $(SWIFT_LIB_FLAGS) --product reducerkit
	@mkdir -p $(BUILD)
	cp .build-lib/release/libreducerkit.so $(LIB).tmp
	strip --strip-debug $(LIB).tmp
	mv -f $(LIB).tmp $(LIB)  # replace atomically: a running process may have the old one mapped
	@echo "built $(LIB): $$(du -h $(LIB) | cut -f1); NEEDED: $$(readelf -d $(LIB) | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
	@! readelf -d $(LIB) | grep NEEDED | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' \
	  || (echo "error: $(LIB) depends on the Swift runtime" && exit 1)

$(BUILD)/c/%: Tests/c/%.c Tests/c/rk_test.h Tests/c/json_mini.h include/reducerkit.h $(LIB)
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

test: deps lib test-swift test-user-package test-c test-valgrind test-examples test-custom test-python test-embed test-fuzz
	@echo "make test: all suites passed"

# Everything, plus the sanitizer runs (not in `make test`: they add two instrumented builds).
test-all: test test-tsan test-asan
	@echo "make test-all: all suites passed"

# AddressSanitizer (with LeakSanitizer): the library and every C test built with ASan; any
# report fails the target (one explained LeakSanitizer suppression: Tests/sanitizers/lsan.supp).
test-asan:
	$(SWIFT) build -c release --sanitize=address --scratch-path .build-asan-lib --product reducerkit
	@mkdir -p $(BUILD)/asan
	@set -e; for c in Tests/c/test_*.c; do t=$$(basename $$c .c); \
	  clang -std=c99 -g -O1 -fsanitize=address -fno-omit-frame-pointer -fuse-ld=lld -Wno-string-compare -Iinclude \
	    -o $(BUILD)/asan/$$t $$c -L.build-asan-lib/release -lreducerkit -L$(SWIFT_RUNTIME_DIR) -ldispatch \
	    -lBlocksRuntime -lpthread -Wl,-rpath,$(abspath .build-asan-lib/release) -Wl,-rpath,$(SWIFT_RUNTIME_DIR); \
	  echo "== asan $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios ASAN_OPTIONS=detect_leaks=1 \
	    LSAN_OPTIONS=suppressions=$(abspath Tests/sanitizers/lsan.supp) $(BUILD)/asan/$$t; done

# ThreadSanitizer: the Swift tests, and the C concurrency tests against a TSan-built library
# (Swift runtime linked dynamically). Known false positives of the toolchain are suppressed,
# each explained, in Tests/sanitizers/tsan.supp; any other report fails the target.
TSAN_ENV   := TSAN_OPTIONS="suppressions=$(abspath Tests/sanitizers/tsan.supp) print_suppressions=1"
TSAN_CTESTS := test_api test_hardening test_requests test_patch
SWIFT_RUNTIME_DIR = $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))/lib/swift/linux
test-tsan:
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(TSAN_ENV) $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan
	$(SWIFT) build -c release --sanitize=thread --scratch-path .build-tsan-lib --product reducerkit
	@mkdir -p $(BUILD)/tsan
	@set -e; for t in $(TSAN_CTESTS); do \
	  clang -std=c99 -g -O1 -fsanitize=thread -Wno-string-compare -Iinclude -o $(BUILD)/tsan/$$t Tests/c/$$t.c \
	    -L.build-tsan-lib/release -lreducerkit -L$(SWIFT_RUNTIME_DIR) -ldispatch -lBlocksRuntime -lpthread \
	    -Wl,-rpath,$(abspath .build-tsan-lib/release) -Wl,-rpath,$(SWIFT_RUNTIME_DIR); \
	  echo "== tsan $$t"; $(TSAN_ENV) $(BUILD)/tsan/$$t; done

# libFuzzer harnesses (Tests/fuzz) against the library built with AddressSanitizer and
# coverage: each runs FUZZ_SECONDS from its committed seed corpus (new inputs go to
# build/fuzz/corpus-NAME, crashes to build/fuzz/); a crash or a failed check fails the target.
FUZZ_SECONDS ?= 20
# In `make test`: each harness for 20 s (a crash fails the test).
test-fuzz:
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20

FUZZERS    := fuzz_send fuzz_create fuzz_resolve
fuzz:
	$(SWIFT) build -c release --sanitize=address --scratch-path .build-fuzz-lib --product reducerkit \
	  -Xswiftc -sanitize=fuzzer
	@mkdir -p $(BUILD)/fuzz
	@set -e; for f in $(FUZZERS); do n=$${f#fuzz_}; \
	  clang -g -O1 -fsanitize=fuzzer,address -Iinclude -o $(BUILD)/fuzz/$$f Tests/fuzz/$$f.c \
	    -L.build-fuzz-lib/release -lreducerkit -L$(SWIFT_RUNTIME_DIR) -ldispatch -lBlocksRuntime -lpthread \
	    -fuse-ld=lld -Wl,-rpath,$(abspath .build-fuzz-lib/release) -Wl,-rpath,$(SWIFT_RUNTIME_DIR); \
	  mkdir -p $(BUILD)/fuzz/corpus-$$n; echo "== $$f for $(FUZZ_SECONDS) s"; \
	  status=0; LSAN_OPTIONS=suppressions=$(abspath Tests/sanitizers/lsan.supp) $(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=30 \
	    -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/$$n- $(BUILD)/fuzz/corpus-$$n \
	    Tests/fuzz/corpus/$$n > $(BUILD)/fuzz/$$n.log 2>&1 || status=$$?; \
	  grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|fuzz check failed|SUMMARY" $(BUILD)/fuzz/$$n.log || true; \
	  if [ $$status -ne 0 ]; then tail -40 $(BUILD)/fuzz/$$n.log; exit $$status; fi; done

test-swift:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@echo "== the Wire tests again, with the codec's layout-dependent fast paths off"
	REDUCERKIT_WIRE_FAST_PATHS=0 $(SWIFT) test --skip-build --filter ReducerKitWireTests

test-c: $(CTESTS)
	$(CC) $(CFLAGS_C) -fsyntax-only Tests/c/header_only.c
	$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -x c++ -fsyntax-only Tests/c/header_only.c
	@set -e; for t in $(CTESTS); do echo "== $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios $$t; done
	@set -e; for t in test_features test_bad_input test_scenarios; do \
	  echo "== $$t, the codec's fast paths off"; \
	  REDUCERKIT_WIRE_FAST_PATHS=0 REDUCERKIT_SCENARIOS=Tests/scenarios $(BUILD)/c/$$t; done

test-valgrind: $(CTESTS)
	@set -e; for t in $(CTESTS); do echo "== valgrind $$t"; REDUCERKIT_SCENARIOS=Tests/scenarios RK_UNDER_VALGRIND=1 $(VALGRIND) $$t; done

# A user's package that depends on ReducerKitTesting alone: wrong expectations must fail it.
test-user-package:
	bash scripts/test-user-package.sh

test-custom: lib
	bash examples/custom-feature/test.sh

test-python: lib
	$(PYTHON) -m pip install -q ./bindings/python
	cd bindings/python && REDUCERKIT_LIB=$(abspath $(LIB)) $(PYTHON) -m pytest -q tests

# One store, two languages, one process: C owns a store, embedded CPython borrows it.
PYTHON_CONFIG ?= $(PYTHON)-config
test-embed: lib
	@mkdir -p $(BUILD)/c
	$(CC) -std=c99 -Wall -Wextra -Werror $$($(PYTHON_CONFIG) --includes) -Iinclude \
	  Tests/embed/embed_python.c -o $(BUILD)/c/embed_python -L$(BUILD) -lreducerkit \
	  -Wl,-rpath,'$$ORIGIN/..' $$($(PYTHON_CONFIG) --ldflags --embed)
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(BUILD)/c/embed_python

bench: lib
	$(SWIFT) run -c release --scratch-path .build-bench reducerkit-bench
	$(MAKE) --no-print-directory $(BUILD)/bench/c_bench
	$(BUILD)/bench/c_bench
	REDUCERKIT_LIB=$(abspath $(LIB)) PYTHONPATH=bindings/python/src $(PYTHON) benchmarks/python/bench.py
	$(MAKE) --no-print-directory bench-scaling

# Observation cost against state size (C and Python, pydux beside them): prints the table and
# writes benchmarks/results/scaling.{md,json,png}.
bench-scaling: lib $(BUILD)/bench/c_scaling
	$(PYTHON) -m pip install -q -r benchmarks/requirements.txt
	REDUCERKIT_LIB=$(abspath $(LIB)) $(PYTHON) benchmarks/scaling.py --c $(BUILD)/bench/c_scaling

$(BUILD)/bench/c_scaling: benchmarks/c/scaling.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -std=c99 -Wall -Iinclude -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

$(BUILD)/bench/c_bench: benchmarks/c/bench.c include/reducerkit.h $(LIB)
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -std=c99 -Wall -Iinclude -o $@ $< -L$(BUILD) -lreducerkit -Wl,-rpath,'$$ORIGIN/..'

clean:
	rm -rf $(BUILD) .build .build-lib .build-bench .build-demo
