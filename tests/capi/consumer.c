/* A C consumer of include/gpuwatch/gpuwatch.h, compiled as C99 and linked against
 * libgpuwatch.so. ctest runs it on the simulated driver: gpuwatch sim run demo -- capi_consumer */
#include <gpuwatch/gpuwatch.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                    \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, \
              #cond, gw_last_error());                                                 \
      ++failures;                                                                      \
    }                                                                                  \
  } while (0)

static int find_entry(const gw_snapshot* snapshot, const char* wanted, double* value) {
  size_t count = 0, i;
  if (gw_snapshot_size(snapshot, &count) != GW_OK) return 0;
  for (i = 0; i < count; ++i) {
    const char* key = NULL;
    double v = 0;
    if (gw_snapshot_entry(snapshot, i, &key, &v) == GW_OK && strcmp(key, wanted) == 0) {
      *value = v;
      return 1;
    }
  }
  return 0;
}

int main(void) {
  gw_monitor* monitor = NULL;
  gw_snapshot* snapshot = NULL;
  uint64_t samples = 0;
  size_t count = 0;
  double value = 0, unix_s = 0, threshold = 0;
  const char* json = NULL;
  const char* key = NULL;
  const char* advice = NULL;

  CHECK(gw_abi_version() == GW_ABI_VERSION);
  CHECK(strcmp(gw_last_error(), "") == 0);

  /* Bad arguments: a status and a message naming the problem; no handle. */
  CHECK(gw_monitor_open(0.0, "all", NULL, &monitor) == GW_ERROR_INVALID_ARGUMENT);
  CHECK(monitor == NULL);
  CHECK(strstr(gw_last_error(), "interval") != NULL);
  CHECK(gw_monitor_open(1.0, "", NULL, &monitor) == GW_ERROR_INVALID_ARGUMENT);
  CHECK(gw_monitor_open(1.0, "all", NULL, NULL) == GW_ERROR_INVALID_ARGUMENT);
  CHECK(gw_monitor_open(1.0, "all", "/nonexistent/libnvidia-ml.so.1", &monitor) == GW_OK);
  CHECK(gw_monitor_start(monitor, 5.0) == GW_ERROR_NVML_UNAVAILABLE);
  CHECK(strstr(gw_last_error(), "/nonexistent/libnvidia-ml.so.1") != NULL);
  CHECK(gw_monitor_close(monitor) == GW_OK);
  monitor = NULL;

  /* The simulated demo node (GPUWATCH_NVML_LIBRARY from `sim run`): GPUs 0 and 2 only. */
  CHECK(gw_monitor_open(0.1, "0,2", NULL, &monitor) == GW_OK);
  CHECK(gw_monitor_start(monitor, 10.0) == GW_OK);
  CHECK(gw_monitor_start(monitor, 1.0) == GW_ERROR_STATE);
  CHECK(gw_monitor_sample_count(monitor, &samples) == GW_OK && samples >= 1);
  CHECK(gw_monitor_wait(monitor, samples, 5.0) == GW_OK);
  CHECK(gw_monitor_snapshot(monitor, &snapshot) == GW_OK);
  CHECK(gw_snapshot_time(snapshot, &unix_s) == GW_OK && unix_s > 1.6e9);
  CHECK(gw_snapshot_size(snapshot, &count) == GW_OK && count >= 10);
  CHECK(find_entry(snapshot, "gpu0/memory_total_gib", &value) && value > 1.0 && value < 1024.0);
  CHECK(find_entry(snapshot, "gpu2/util_percent", &value) && value >= 0.0 && value <= 100.0);
  CHECK(find_entry(snapshot, "gpu2/sm_clock_mhz", &value) && value > 100.0);
  CHECK(!find_entry(snapshot, "gpu1/util_percent", &value)); /* not selected */
  CHECK(gw_snapshot_entry(snapshot, count, &key, &value) == GW_ERROR_NOT_FOUND);
  CHECK(gw_snapshot_json(snapshot, &json) == GW_OK && json[0] == '{');
  CHECK(strstr(json, "\"gpu0/memory_used_gib\"") != NULL);
  CHECK(strstr(json, "\"gpus\":[0,2]") != NULL);
  CHECK(gw_monitor_close(monitor) == GW_OK);
  /* A snapshot outlives its monitor. */
  CHECK(find_entry(snapshot, "gpu0/memory_total_gib", &value));
  CHECK(gw_snapshot_free(snapshot) == GW_OK);

  /* The diagnose engine's thresholds and advice. */
  CHECK(gw_diagnose_threshold("input_starved.info_share", &threshold) == GW_OK && threshold > 0 && threshold < 1);
  CHECK(gw_diagnose_threshold("no.such", &threshold) == GW_ERROR_NOT_FOUND);
  CHECK(gw_diagnose_advice("input_starved", 0, &advice) == GW_OK && strstr(advice, "num_workers") != NULL);
  CHECK(gw_diagnose_advice("input_starved", 99, &advice) == GW_ERROR_NOT_FOUND);

  if (failures == 0) printf("capi_consumer: ok (%lu entries)\n", (unsigned long)count);
  return failures == 0 ? 0 : 1;
}
