/* Compares gpuwatch's own NVML declarations (src/nvml/nvml_abi.h) with Debian's
 * nvml.h: the same sizes, offsets and constants, so the loader and the simulator
 * agree with real drivers. Each header is compiled in its own C file. */
#include <stddef.h>
#include <stdio.h>
#include "nvml/nvml_abi.h"

extern const size_t gw_layout_ours[];
extern const size_t gw_layout_theirs[];
extern const long gw_constants_theirs[];
static const long constants_ours[] = { nvmlMemory_v2, NVML_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
  NVML_ERROR_GPU_IS_LOST, NVML_ERROR_ARGUMENT_VERSION_MISMATCH, NVML_ERROR_UNKNOWN,
  NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_SERIAL_BUFFER_SIZE,
  NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE,
  (long)nvmlClocksThrottleReasonHwPowerBrakeSlowdown, (long)nvmlEventTypeXidCriticalError,
  NVML_PERF_POLICY_RELIABILITY, NVML_DEVICE_ARCH_HOPPER, NVML_BRAND_NVIDIA,
  NVML_GPM_METRIC_MAX, NVML_GPM_METRICS_GET_VERSION, NVML_GPM_SUPPORT_VERSION, NVML_GPM_METRIC_ANY_TENSOR_UTIL,
  NVML_GPM_METRIC_IMMA_TENSOR_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL, NVML_GPM_METRIC_FP16_UTIL,
  NVML_GPM_METRIC_PCIE_RX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC };

#define SIZE(T) #T,
#define OFFSET(T, m) #T "." #m,
static const char* names[] = {
#include "layout_list.h"
};

int main(void) {
  int failures = 0;
  size_t n = sizeof(names) / sizeof(names[0]);
  for (size_t i = 0; i < n; ++i) {
    if (gw_layout_ours[i] != gw_layout_theirs[i]) {
      printf("MISMATCH %s: ours %zu, nvml.h %zu\n", names[i], gw_layout_ours[i], gw_layout_theirs[i]);
      ++failures;
    }
  }
  for (size_t i = 0; i < sizeof(constants_ours) / sizeof(constants_ours[0]); ++i) {
    if (constants_ours[i] != gw_constants_theirs[i]) {
      printf("MISMATCH constant #%zu: ours %ld, nvml.h %ld\n", i, constants_ours[i], gw_constants_theirs[i]);
      ++failures;
    }
  }
  printf("%zu layout checks, %d mismatches\n", n, failures);
  return failures == 0 ? 0 : 1;
}
