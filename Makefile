# A thin wrapper: scripts/setup.sh installs, CMake builds, CTest tests.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release $(if $(CI),-DMPTRAIN_WERROR=ON)
CTEST_FLAGS ?=

.PHONY: all setup configure build run test clean
all: build

setup:
	@scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

# Everything: the binary, its placement library, the tests and the benchmarks' programs.
build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only what `mptrain run` runs: the binary and the placement library it preloads.
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target mptrain
	$(BUILD)/mptrain run

test: build
	@scripts/setup.sh --test
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

clean:
	rm -rf $(BUILD)
