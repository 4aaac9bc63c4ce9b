/* gpuwatch.h: the stable C ABI of libgpuwatch.so (C99).
 *
 * A monitor samples the GPUs on its own background thread (NVML is never called on the
 * caller's thread); the caller reads the latest snapshot as a flat list of numeric
 * key/value pairs ("gpu0/util_percent" = 87) or as one JSON object. An absent value
 * (unsupported, failed this time) is an absent key, never 0.
 *
 * Conventions: every function returns a gw_status, except gw_abi_version() and
 * gw_last_error(). On an error, gw_last_error() says what went wrong (a thread-local
 * string, valid until the next gw_ call on the same thread). Handles are opaque; strings
 * handed out stay valid as long as the handle they come from. No C++ type crosses this
 * boundary. The Python package (python/gpuwatch) uses this ABI through ctypes.
 */
#ifndef GPUWATCH_GPUWATCH_H
#define GPUWATCH_GPUWATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on every incompatible change (the library's SOVERSION follows it). */
#define GW_ABI_VERSION 1

#if defined(__GNUC__)
#define GW_API __attribute__((visibility("default")))
#else
#define GW_API
#endif

typedef enum gw_status {
  GW_OK = 0,
  GW_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a bad interval or GPU selection */
  GW_ERROR_NVML_UNAVAILABLE = 2, /* libnvidia-ml could not be loaded or initialised */
  GW_ERROR_NOT_FOUND = 3,        /* no such entry, threshold or advice line */
  GW_ERROR_STATE = 4,            /* e.g. start twice */
  GW_ERROR_TIMEOUT = 5,          /* gw_monitor_wait: no new sample in time */
  GW_ERROR_INTERNAL = 6          /* anything else (out of memory...) */
} gw_status;

typedef struct gw_monitor gw_monitor;   /* a sampler and its background thread */
typedef struct gw_snapshot gw_snapshot; /* one sample, immutable */

/* GW_ABI_VERSION of the library actually loaded (compare with the header's). */
GW_API int gw_abi_version(void);

/* The message of the last failed call on this thread ("" if none). Never NULL. */
GW_API const char* gw_last_error(void);

/* A monitor sampling every INTERVAL_S seconds (0.05 .. 3600) the GPUs GPUS selects:
 *   "all"  every GPU;
 *   "job"  re-evaluated at every sample: the GPUs running a process of this process's
 *          tree (itself and its descendants); until one appears, the GPUs named by
 *          CUDA_VISIBLE_DEVICES (indices or GPU UUIDs); else every GPU;
 *   "0,2" or UUIDs / PCI bus ids, as nvidia-smi -i takes them.
 * NVML_LIBRARY: path of libnvidia-ml, or NULL for $GPUWATCH_NVML_LIBRARY, else the system's
 * libnvidia-ml.so.1. Nothing is loaded until gw_monitor_start(). */
GW_API gw_status gw_monitor_open(double interval_s, const char* gpus, const char* nvml_library,
                                 gw_monitor** out);

/* Starts the background thread, which loads NVML and takes the first sample; returns once
 * that first sample is there (or NVML failed: GW_ERROR_NVML_UNAVAILABLE, with the loader's
 * message), waiting at most TIMEOUT_S seconds for it (then GW_ERROR_TIMEOUT; sampling goes on). */
GW_API gw_status gw_monitor_start(gw_monitor* monitor, double timeout_s);

/* How many samples the thread has finished so far (cheap: one atomic load). */
GW_API gw_status gw_monitor_sample_count(const gw_monitor* monitor, uint64_t* out);

/* Waits until more than AFTER samples are finished, at most TIMEOUT_S seconds. */
GW_API gw_status gw_monitor_wait(gw_monitor* monitor, uint64_t after, double timeout_s);

/* The latest sample (an empty snapshot before the first one). Free with gw_snapshot_free. */
GW_API gw_status gw_monitor_snapshot(gw_monitor* monitor, gw_snapshot** out);

/* Stops the thread and frees the monitor (NULL is fine). Snapshots taken stay valid. */
GW_API gw_status gw_monitor_close(gw_monitor* monitor);

/* Unix time (seconds) the sample started; 0 for the empty snapshot. */
GW_API gw_status gw_snapshot_time(const gw_snapshot* snapshot, double* unix_s);
/* Number of numeric entries and entry I: KEY like "gpu0/memory_used_gib", VALUE. The host
 * beside the GPUs comes as "host/<key>" ("host/cpu_busy_percent", "host/job_cpu_cores": the CPU
 * of the monitored job's process tree, in cores). */
GW_API gw_status gw_snapshot_size(const gw_snapshot* snapshot, size_t* count);
GW_API gw_status gw_snapshot_entry(const gw_snapshot* snapshot, size_t index, const char** key, double* value);
/* The same as one JSON object: {"time": unix_s, "gpus": [indices], "gpu0/util_percent": 87, ...}. */
GW_API gw_status gw_snapshot_json(const gw_snapshot* snapshot, const char** json);
GW_API gw_status gw_snapshot_free(gw_snapshot* snapshot);

/* A threshold of the diagnose engine by name, e.g. "input_starved.info_share" (0.05). */
GW_API gw_status gw_diagnose_threshold(const char* name, double* out);
/* Line I of the diagnose engine's advice for KIND ("input_starved"); GW_ERROR_NOT_FOUND past the end. */
GW_API gw_status gw_diagnose_advice(const char* kind, size_t index, const char** text);

#ifdef __cplusplus
}
#endif

#endif /* GPUWATCH_GPUWATCH_H */
