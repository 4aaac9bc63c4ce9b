# gpuwatch: the two commands a new machine needs are `make run` and `make test`.
BUILD_DIR ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all deps configure build test run bench clean

all: build

deps:
	@scripts/install-deps

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

# Runs gpuwatch on the real driver, or on the simulated `demo` node when this
# machine has no NVIDIA driver (exit code 3 = NVML unavailable).
run: build
	@$(BUILD_DIR)/gpuwatch status; rc=$$?; \
	if [ $$rc -eq 3 ]; then \
	  echo; echo "No NVIDIA driver here: showing the SIMULATED 8-GPU 'demo' node instead."; echo; \
	  $(BUILD_DIR)/gpuwatch --simulate demo status; \
	else exit $$rc; fi

bench: build
	$(BUILD_DIR)/bench/gpuwatch_bench

clean:
	rm -rf $(BUILD_DIR)
