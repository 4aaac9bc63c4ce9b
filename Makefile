# gpuwatch: the two commands a new machine needs are `make run` and `make test`.
BUILD_DIR ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all deps deps-run configure build build-run test speed-guard sanitize fuzz-smoke run bench clean

all: build

# Everything: building, running and testing (make test, CI).
deps:
	@scripts/install-deps

# Only what building and running needs (make run): no Slurm, PyTorch, Chromium or Prometheus.
deps-run:
	@scripts/install-deps --run

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: deps-run $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The binary, its modules and the simulated driver: what `make run` runs.
build-run: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target gpuwatch nvidia_ml_sim

test: deps build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

# Instruction counts, thread starts and waiting against their baselines (bench/speed_guard.sh).
speed-guard: deps build
	bench/speed_guard.sh $(BUILD_DIR)

# ASan+UBSan over the unit and integration tests and TSan over the threaded parts
# (scripts/ci-sanitizers; CI runs its asan job, docs/security.md), and ~20 s of every libFuzzer
# target (FUZZ_SECONDS=600 for the long run by hand).
FUZZ_SECONDS ?= 20
sanitize: deps
	scripts/ci-sanitizers

fuzz-smoke: deps
	scripts/fuzz-smoke $(FUZZ_SECONDS)

# Shows `gpuwatch status`, then serves the live dashboard and /metrics in the foreground on
# http://127.0.0.1:9835/ until Ctrl-C (exit 0): on the real driver, or on the simulated 8-GPU
# `demo` node when this machine has no NVIDIA driver (status exit code 3 = NVML unavailable).
# RUN_PORT=N picks another port; a taken port falls back to a free one (the URL says which).
RUN_PORT ?= 9835
run: build-run
	@trap ':' INT TERM; BUILD_DIR=$(BUILD_DIR) RUN_PORT=$(RUN_PORT) scripts/run-dashboard

bench: build
	$(BUILD_DIR)/bench/gpuwatch_bench

clean:
	rm -rf $(BUILD_DIR)
