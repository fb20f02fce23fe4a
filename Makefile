# Thin wrapper over CMake so that the common jobs are one word each.
#   make              build (./build)
#   make demo         the showcase (GPU when present, else CPU)
#   make test         all tests (CPU; GPU tests skip without a GPU), then the sanitizer build
#   make fuzz         new fuzz seeds for FUZZ_SECONDS (600) under the sanitizers
#   make test-clang   the CPU back end built by Clang (warnings as errors) and its tests
#   make bench        benchmarks -> benchmarks/results/*.json and docs/performance.md
#   make install PREFIX=/opt/gpusolve
BUILD ?= build
ASAN_BUILD ?= build-asan
CLANG_BUILD ?= build-clang
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
WERROR ?= ON

.PHONY: all build configure deps demo test test-main test-sanitize test-clang fuzz bench install gpu-check format clean

all: build

deps:
	@bash scripts/deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DGS_WERROR=$(WERROR) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tools/gpusolve demo

test: test-main test-sanitize

# ctest hides the output of skipped tests: print their reasons from its log.
test-main: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@grep -h '^SKIP' $(BUILD)/Testing/Temporary/LastTest.log | sort -u || true

# The CPU back end under AddressSanitizer and UndefinedBehaviorSanitizer.
test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGS_ENABLE_CUDA=OFF -DGS_SANITIZE=ON \
	  -DGS_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -L cpu -j $(JOBS)

# The CPU back end built by Clang, whose warnings (and vectoriser) differ from GCC's; the tests
# check the same bits as GCC's build gives. Without the stand-alone benchmark programs, so that a
# build without them stays whole (the gpusolve program's benchmark commands are always built).
test-clang: deps
	CC=clang cmake -S . -B $(CLANG_BUILD) -DGS_ENABLE_CUDA=OFF -DGS_BUILD_BENCHMARKS=OFF \
	  -DGS_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure -L cpu -j $(JOBS)

# New fuzz seeds for FUZZ_SECONDS (ctest replays fixed ones), under the sanitizers.
FUZZ_SECONDS ?= 600
fuzz: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGS_ENABLE_CUDA=OFF -DGS_SANITIZE=ON \
	  -DGS_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	bash scripts/fuzz.sh $(ASAN_BUILD) $(FUZZ_SECONDS)

bench: build
	$(BUILD)/tools/gpusolve bench -json_dir benchmarks/results
	$(BUILD)/tools/gpusolve banded -sweep 1 -json_dir benchmarks/results
	$(BUILD)/tools/gpusolve spmv -suite 1 -json_dir benchmarks/results
	$(BUILD)/tools/gpusolve ch -bench 1 -json_dir benchmarks/results
	python3 scripts/perf_table.py

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

gpu-check:
	bash scripts/gpu-check.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(CLANG_BUILD) build-gpu
