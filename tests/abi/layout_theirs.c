#include <stddef.h>
#include <nvml.h>
#define SIZE(T) sizeof(T),
#define OFFSET(T, m) offsetof(T, m),
const size_t gw_layout_theirs[] = {
#include "layout_list.h"
};
/* Constants that must agree too. */
const long gw_constants_theirs[] = { nvmlMemory_v2, NVML_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
  NVML_ERROR_GPU_IS_LOST, NVML_ERROR_ARGUMENT_VERSION_MISMATCH, NVML_ERROR_UNKNOWN,
  NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_SERIAL_BUFFER_SIZE,
  NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE,
  (long)nvmlClocksThrottleReasonHwPowerBrakeSlowdown, (long)nvmlEventTypeXidCriticalError,
  NVML_PERF_POLICY_RELIABILITY, NVML_DEVICE_ARCH_HOPPER, NVML_BRAND_NVIDIA };
