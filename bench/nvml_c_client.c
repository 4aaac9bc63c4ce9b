/* The anchor of the one-shot speed guard (issue 26): a minimal C client of the NVML calls a
 * glance needs (gpustat's set: name, UUID, temperature, utilization, memory, power and its
 * limit, SM clock, the compute processes), printed as one JSON line per GPU. It loads
 * libnvidia-ml.so.1 with dlopen as gpuwatch does, so on the simulated node it pays for the same
 * driver start-up; whatever gpuwatch does beyond this is its own cost.
 *   nvml_c_client [LIBRARY]      (default: libnvidia-ml.so.1 from the library path) */
#include <dlfcn.h>
#include <nvml.h>
#include <stdio.h>

#define CALL(name, ...) ((name##_fn)dlsym(lib, #name))(__VA_ARGS__)

typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char*, unsigned);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned*);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned, nvmlDevice_t*);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t, char*, unsigned);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t, char*, unsigned);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned*);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t, nvmlUtilization_t*);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t, nvmlMemory_t*);
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_fn)(nvmlDevice_t, unsigned*);
typedef nvmlReturn_t (*nvmlDeviceGetEnforcedPowerLimit_fn)(nvmlDevice_t, unsigned*);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t, nvmlClockType_t, unsigned*);
typedef nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v3_fn)(nvmlDevice_t, unsigned*, nvmlProcessInfo_t*);

int main(int argc, char** argv) {
  void* lib = dlopen(argc > 1 ? argv[1] : "libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "nvml_c_client: %s\n", dlerror());
    return 3;
  }
  if (CALL(nvmlInit_v2) != NVML_SUCCESS) return 3;
  char driver[96] = "";
  CALL(nvmlSystemGetDriverVersion, driver, sizeof driver);
  unsigned count = 0;
  CALL(nvmlDeviceGetCount_v2, &count);
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t device;
    if (CALL(nvmlDeviceGetHandleByIndex_v2, i, &device) != NVML_SUCCESS) continue;
    char name[96] = "", uuid[96] = "";
    unsigned temperature = 0, power = 0, limit = 0, sm_clock = 0, processes = 64;
    nvmlUtilization_t utilization = {0, 0};
    nvmlMemory_t memory = {0, 0, 0};
    nvmlProcessInfo_t infos[64];
    CALL(nvmlDeviceGetName, device, name, sizeof name);
    CALL(nvmlDeviceGetUUID, device, uuid, sizeof uuid);
    CALL(nvmlDeviceGetTemperature, device, NVML_TEMPERATURE_GPU, &temperature);
    CALL(nvmlDeviceGetUtilizationRates, device, &utilization);
    CALL(nvmlDeviceGetMemoryInfo, device, &memory);
    CALL(nvmlDeviceGetPowerUsage, device, &power);
    CALL(nvmlDeviceGetEnforcedPowerLimit, device, &limit);
    CALL(nvmlDeviceGetClockInfo, device, NVML_CLOCK_SM, &sm_clock);
    if (CALL(nvmlDeviceGetComputeRunningProcesses_v3, device, &processes, infos) != NVML_SUCCESS) processes = 0;
    printf("{\"index\":%u,\"name\":\"%s\",\"uuid\":\"%s\",\"driver\":\"%s\",\"temperature_c\":%u,"
           "\"utilization_gpu\":%u,\"memory_used\":%llu,\"power_mw\":%u,\"power_limit_mw\":%u,\"sm_clock_mhz\":%u,"
           "\"processes\":%u}\n",
           i, name, uuid, driver, temperature, utilization.gpu, (unsigned long long)memory.used, power, limit, sm_clock,
           processes);
  }
  CALL(nvmlShutdown);
  return 0;
}
