# Sluice: the README's two commands (`make demo`, `make check`) plus bench
# and fuzz. Dependencies are installed on first use (Debian packages).
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
export CCACHE_DIR ?= $(HOME)/.cache/sluice-ccache

.PHONY: all deps configure build demo check install-check bench fuzz tsan clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSLUICE_TESTS=ON

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/sluice run samples/hello.sluice

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Installs into a temporary prefix, then builds and runs samples/cpp_fixture
# (an outside project using find_package(Sluice)) and samples/aot (a C
# program linking a graph compiled ahead of time) against it.
install-check: build
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  cmake --install $(BUILD) --prefix "$$tmp/prefix" > "$$tmp/install.log"; \
	  cmake -S samples/cpp_fixture -B "$$tmp/fixture" -G Ninja \
	    -DCMAKE_PREFIX_PATH="$$tmp/prefix" -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) > "$$tmp/configure.log" \
	    || { cat "$$tmp/configure.log"; exit 1; }; \
	  cmake --build "$$tmp/fixture" -j $(JOBS); \
	  ctest --test-dir "$$tmp/fixture" --output-on-failure; \
	  cmake -S samples/aot -B "$$tmp/aot" -G Ninja \
	    -DCMAKE_PREFIX_PATH="$$tmp/prefix" -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) > "$$tmp/configure-aot.log" \
	    || { cat "$$tmp/configure-aot.log"; exit 1; }; \
	  cmake --build "$$tmp/aot" -j $(JOBS); \
	  ctest --test-dir "$$tmp/aot" --output-on-failure

bench: build
	@bash scripts/bench.sh $(BUILD)

fuzz: deps
	@bash scripts/fuzz.sh $${FUZZ_SECONDS:-60}

# The concurrency tests (executor, session, queues, the gRPC cluster, the JIT) under ThreadSanitizer.
TSAN_TESTS = runtime_test queues_test distributed_test jit_test gpu_test
tsan: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSLUICE_TSAN=ON -DSLUICE_TESTS=ON
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TESTS)
	for t in $(TSAN_TESTS); do \
	  TSAN_OPTIONS="suppressions=$(CURDIR)/scripts/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
	    ./build-tsan/tests/$${t%_test}*/$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD) build-tsan build-fuzz
