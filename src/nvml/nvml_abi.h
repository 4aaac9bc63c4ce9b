/* The subset of NVML's C ABI that gpuwatch uses and that its simulated driver
 * exports. Declared by the project (as nvtop does) so that building never needs
 * nvml.h, the CUDA toolkit or a driver. tests/abi compares sizes and offsets with
 * Debian's nvml.h when it is installed. Plain C: it is included by C++ code in
 * src/nvml (the loader) and sim/ (the stand-in library), which cannot drift. */
#ifndef GPUWATCH_NVML_ABI_H
#define GPUWATCH_NVML_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int nvmlReturn_t;
enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_DEPRECATED = 26,
  NVML_ERROR_NOT_READY = 27,
  NVML_ERROR_UNKNOWN = 999
};

typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlEventSet_st* nvmlEventSet_t;

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE 80
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL
#define NVML_INIT_FLAG_NO_GPUS 1u

typedef struct {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
  unsigned int version;
  unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 0x02000028u /* sizeof(nvmlMemory_v2_t) | 2 << 24 */

typedef struct { unsigned long long bar1Total, bar1Free, bar1Used; } nvmlBAR1Memory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;
typedef nvmlProcessInfo_v2_t nvmlProcessInfo_t; /* _v3 symbols: same 24-byte layout in nvml.h 11.8 */

typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct { /* the pre-MIG layout of the legacy nvmlEventSetWait symbol */
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
} nvmlEventData_v1_t;

typedef union {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
} nvmlValue_t;

/* nvmlDeviceGetSamples: one entry of the driver's sample buffer (16 bytes: timeStamp, value). */
typedef struct {
  unsigned long long timeStamp; /* CPU microseconds since 1970 */
  nvmlValue_t sampleValue;
} nvmlSample_t;

/* nvmlSamplingType_t */
enum { NVML_TOTAL_POWER_SAMPLES = 0, NVML_GPU_UTILIZATION_SAMPLES = 1, NVML_MEMORY_UTILIZATION_SAMPLES = 2,
       NVML_ENC_UTILIZATION_SAMPLES = 3, NVML_DEC_UTILIZATION_SAMPLES = 4, NVML_PROCESSOR_CLK_SAMPLES = 5,
       NVML_MEMORY_CLK_SAMPLES = 6 };

typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType; /* nvmlValueType_t */
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct { unsigned long long referenceTime, violationTime; } nvmlViolationTime_t;

typedef struct {
  unsigned int gpuUtilization;
  unsigned int memoryUtilization;
  unsigned long long maxMemoryUsage;
  unsigned long long time;
  unsigned long long startTime;
  unsigned int isRunning;
  unsigned int reserved[5];
} nvmlAccountingStats_t;

typedef struct { unsigned int max, high, partial, low, none; } nvmlRowRemapperHistogramValues_t;

/* NVLink fabric (r535+; newer than Debian's nvml.h, so tests/abi checks these layouts
 * against the figures of NVIDIA's r550 header instead: 28 and 36 bytes). */
#define NVML_GPU_FABRIC_UUID_LEN 16
typedef unsigned char nvmlGpuFabricState_t;
enum { NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0, NVML_GPU_FABRIC_STATE_NOT_STARTED = 1,
       NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2, NVML_GPU_FABRIC_STATE_COMPLETED = 3 };
typedef struct { /* nvmlDeviceGetGpuFabricInfo (r535) */
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status; /* meaningful only when state is COMPLETED */
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_t;
typedef struct { /* nvmlDeviceGetGpuFabricInfoV with version nvmlGpuFabricInfo_v2 (r550) */
  unsigned int version;
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
  unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
typedef nvmlGpuFabricInfo_v2_t nvmlGpuFabricInfoV_t;
#define nvmlGpuFabricInfo_v2 ((unsigned int)(sizeof(nvmlGpuFabricInfo_v2_t) | (2u << 24))) /* 0x02000024 */

/* GPM: GPU Performance Monitoring (Hopper and later), as in nvml.h 11.8. A sample is an
 * opaque handle from nvmlGpmSampleAlloc; nvmlGpmMetricsGet computes metrics from two. */
typedef struct nvmlGpmSample_st* nvmlGpmSample_t;
#define NVML_GPM_METRIC_MAX 98
typedef struct {
  unsigned int metricId;   /* IN: NVML_GPM_METRIC_* */
  nvmlReturn_t nvmlReturn; /* OUT: value valid only when NVML_SUCCESS */
  double value;            /* OUT: percent 0-100, or MiB/s for the *_PER_SEC metrics */
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;            /* OUT: may be NULL */
} nvmlGpmMetric_t;
typedef struct {
  unsigned int version;    /* NVML_GPM_METRICS_GET_VERSION */
  unsigned int numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define NVML_GPM_METRICS_GET_VERSION 1
typedef struct {
  unsigned int version;    /* NVML_GPM_SUPPORT_VERSION */
  unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1
enum { NVML_GPM_METRIC_GRAPHICS_UTIL = 1, NVML_GPM_METRIC_SM_UTIL = 2, NVML_GPM_METRIC_SM_OCCUPANCY = 3,
       NVML_GPM_METRIC_INTEGER_UTIL = 4, NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5, NVML_GPM_METRIC_DFMA_TENSOR_UTIL = 6,
       NVML_GPM_METRIC_HMMA_TENSOR_UTIL = 7, NVML_GPM_METRIC_IMMA_TENSOR_UTIL = 9, NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
       NVML_GPM_METRIC_FP64_UTIL = 11, NVML_GPM_METRIC_FP32_UTIL = 12, NVML_GPM_METRIC_FP16_UTIL = 13,
       NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20, NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
       NVML_GPM_METRIC_NVDEC_0_UTIL = 30, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60,
       NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61 };

/* Enumerations: int-sized in the C ABI. */
enum { NVML_VALUE_TYPE_DOUBLE = 0, NVML_VALUE_TYPE_UNSIGNED_INT = 1, NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
       NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3, NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4 };
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
       NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2, NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3 };
enum { NVML_COMPUTEMODE_DEFAULT = 0, NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
       NVML_COMPUTEMODE_PROHIBITED = 2, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3 };
enum { NVML_PSTATE_0 = 0, NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum { NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
       NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1 };
enum { NVML_PERF_POLICY_POWER = 0, NVML_PERF_POLICY_THERMAL = 1, NVML_PERF_POLICY_SYNC_BOOST = 2,
       NVML_PERF_POLICY_BOARD_LIMIT = 3, NVML_PERF_POLICY_LOW_UTILIZATION = 4,
       NVML_PERF_POLICY_RELIABILITY = 5 };
enum { NVML_INFOROM_OEM = 0, NVML_INFOROM_ECC = 1, NVML_INFOROM_POWER = 2 };
enum { NVML_BRAND_UNKNOWN = 0, NVML_BRAND_QUADRO = 1, NVML_BRAND_TESLA = 2, NVML_BRAND_GEFORCE = 5,
       NVML_BRAND_NVIDIA_RTX = 13, NVML_BRAND_NVIDIA = 14 };
enum { NVML_DEVICE_ARCH_VOLTA = 5, NVML_DEVICE_ARCH_TURING = 6, NVML_DEVICE_ARCH_AMPERE = 7,
       NVML_DEVICE_ARCH_ADA = 8, NVML_DEVICE_ARCH_HOPPER = 9 };

/* Clock throttle ("clocks event") reasons bitmask. */
#define nvmlClocksThrottleReasonGpuIdle                   0x0000000000000001ULL
#define nvmlClocksThrottleReasonApplicationsClocksSetting 0x0000000000000002ULL
#define nvmlClocksThrottleReasonSwPowerCap                0x0000000000000004ULL
#define nvmlClocksThrottleReasonHwSlowdown                0x0000000000000008ULL
#define nvmlClocksThrottleReasonSyncBoost                 0x0000000000000010ULL
#define nvmlClocksThrottleReasonSwThermalSlowdown         0x0000000000000020ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown         0x0000000000000040ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown      0x0000000000000080ULL
#define nvmlClocksThrottleReasonDisplayClockSetting       0x0000000000000100ULL

/* Event types. */
#define nvmlEventTypeSingleBitEccError 0x0000000000000001ULL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002ULL
#define nvmlEventTypePState            0x0000000000000004ULL
#define nvmlEventTypeXidCriticalError  0x0000000000000008ULL
#define nvmlEventTypeClock             0x0000000000000010ULL

/* Field ids used through nvmlDeviceGetFieldValues. */
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
#define NVML_FI_DEV_REMAPPED_COR 142
#define NVML_FI_DEV_REMAPPED_UNC 143
#define NVML_FI_DEV_REMAPPED_PENDING 144
#define NVML_FI_DEV_REMAPPED_FAILURE 145
#define NVML_FI_DEV_POWER_AVERAGE 185 /* newer drivers; not in nvml.h 11.8 */
#define NVML_FI_DEV_POWER_INSTANT 186
#ifndef NVML_FI_DEV_GET_GPU_RECOVERY_ACTION /* r550+; not in nvml.h 11.8 */
#define NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230
#endif
enum { NVML_GPU_RECOVERY_ACTION_NONE = 0, NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1,
       NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2, NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3,
       NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4 };
#ifndef NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN /* newer drivers; time in ns */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 252
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 253
#endif

#ifdef __cplusplus
}
#endif
#endif
