// The exported C functions of libgpuwatch.so (include/gpuwatch/gpuwatch.h): argument checks,
// C++ exceptions and errors turned into gw_status + gw_last_error(), nothing else.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "capi/diagnose_values.hpp"
#include "capi/monitor.hpp"
#include "gpuwatch/gpuwatch.h"

struct gw_monitor {
  gpuwatch::capi::Monitor monitor;
};

struct gw_snapshot {
  std::shared_ptr<const gpuwatch::capi::FlatSample> sample;
};

namespace {

thread_local std::string last_error;

gw_status fail(gw_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

gw_status null_argument(const char* function, const char* argument) {
  return fail(GW_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

// Runs BODY, turning any exception into GW_ERROR_INTERNAL (nothing C++ crosses the ABI).
template <typename Body>
gw_status guarded(const char* function, Body body) noexcept {
  try {
    last_error.clear();
    return body();
  } catch (const std::exception& e) {
    return fail(GW_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(GW_ERROR_INTERNAL, std::string(function) + ": unknown error");
  }
}

std::chrono::duration<double> seconds(double s) { return std::chrono::duration<double>(s > 0 ? s : 0); }

}  // namespace

extern "C" {

int gw_abi_version(void) { return GW_ABI_VERSION; }

const char* gw_last_error(void) { return last_error.c_str(); }

gw_status gw_monitor_open(double interval_s, const char* gpus, const char* nvml_library, gw_monitor** out) {
  return guarded(__func__, [&] {
    if (!out) return null_argument(__func__, "out");
    *out = nullptr;
    auto options = gpuwatch::capi::monitor_options(interval_s, gpus, nvml_library, std::getenv("GPUWATCH_NVML_LIBRARY"),
                                                   std::getenv("CUDA_VISIBLE_DEVICES"),
                                                   static_cast<std::uint32_t>(::getpid()));
    if (!options) return fail(GW_ERROR_INVALID_ARGUMENT, options.error().message);
    *out = new gw_monitor{gpuwatch::capi::Monitor(std::move(*options))};
    return GW_OK;
  });
}

gw_status gw_monitor_start(gw_monitor* monitor, double timeout_s) {
  return guarded(__func__, [&] {
    if (!monitor) return null_argument(__func__, "monitor");
    std::string message;
    using E = gpuwatch::capi::Monitor::StartError;
    switch (monitor->monitor.start(seconds(timeout_s), message)) {
      case E::None: return GW_OK;
      case E::AlreadyStarted: return fail(GW_ERROR_STATE, message);
      case E::NvmlUnavailable: return fail(GW_ERROR_NVML_UNAVAILABLE, message);
      case E::BadSelection: return fail(GW_ERROR_INVALID_ARGUMENT, message);
      case E::Timeout: return fail(GW_ERROR_TIMEOUT, message);
    }
    return fail(GW_ERROR_INTERNAL, "unknown start result");
  });
}

gw_status gw_monitor_sample_count(const gw_monitor* monitor, uint64_t* out) {
  if (!monitor) return null_argument(__func__, "monitor");
  if (!out) return null_argument(__func__, "out");
  *out = monitor->monitor.sample_count();
  return GW_OK;
}

gw_status gw_monitor_wait(gw_monitor* monitor, uint64_t after, double timeout_s) {
  return guarded(__func__, [&] {
    if (!monitor) return null_argument(__func__, "monitor");
    if (monitor->monitor.wait(after, seconds(timeout_s))) return GW_OK;
    return fail(GW_ERROR_TIMEOUT, "no new sample in time (or the monitor is not sampling)");
  });
}

gw_status gw_monitor_snapshot(gw_monitor* monitor, gw_snapshot** out) {
  return guarded(__func__, [&] {
    if (!monitor) return null_argument(__func__, "monitor");
    if (!out) return null_argument(__func__, "out");
    *out = new gw_snapshot{monitor->monitor.latest()};
    return GW_OK;
  });
}

gw_status gw_monitor_close(gw_monitor* monitor) {
  return guarded(__func__, [&] {
    delete monitor;  // stops and joins the thread
    return GW_OK;
  });
}

gw_status gw_snapshot_time(const gw_snapshot* snapshot, double* unix_s) {
  if (!snapshot) return null_argument(__func__, "snapshot");
  if (!unix_s) return null_argument(__func__, "unix_s");
  *unix_s = snapshot->sample->unix_s;
  return GW_OK;
}

gw_status gw_snapshot_size(const gw_snapshot* snapshot, size_t* count) {
  if (!snapshot) return null_argument(__func__, "snapshot");
  if (!count) return null_argument(__func__, "count");
  *count = snapshot->sample->entries.size();
  return GW_OK;
}

gw_status gw_snapshot_entry(const gw_snapshot* snapshot, size_t index, const char** key, double* value) {
  if (!snapshot) return null_argument(__func__, "snapshot");
  if (!key || !value) return null_argument(__func__, "key or value");
  const auto& entries = snapshot->sample->entries;
  if (index >= entries.size())
    return fail(GW_ERROR_NOT_FOUND, "gw_snapshot_entry: index " + std::to_string(index) + " past the " +
                                        std::to_string(entries.size()) + " entries");
  *key = entries[index].first.c_str();
  *value = entries[index].second;
  return GW_OK;
}

gw_status gw_snapshot_json(const gw_snapshot* snapshot, const char** json) {
  if (!snapshot) return null_argument(__func__, "snapshot");
  if (!json) return null_argument(__func__, "json");
  *json = snapshot->sample->json.empty() ? "{}" : snapshot->sample->json.c_str();
  return GW_OK;
}

gw_status gw_snapshot_free(gw_snapshot* snapshot) {
  delete snapshot;
  return GW_OK;
}

gw_status gw_diagnose_threshold(const char* name, double* out) {
  if (!name) return null_argument(__func__, "name");
  if (!out) return null_argument(__func__, "out");
  const auto value = gpuwatch::capi::diagnose_threshold(name);
  if (!value) return fail(GW_ERROR_NOT_FOUND, std::string("no diagnose threshold named '") + name + "'");
  *out = *value;
  return GW_OK;
}

gw_status gw_diagnose_advice(const char* kind, size_t index, const char** text) {
  if (!kind) return null_argument(__func__, "kind");
  if (!text) return null_argument(__func__, "text");
  const auto line = gpuwatch::capi::diagnose_advice(kind, index);
  if (!line) return fail(GW_ERROR_NOT_FOUND, std::string("no advice line ") + std::to_string(index) + " for '" + kind + "'");
  *text = line->data();  // the kinds table's literals are NUL-terminated
  return GW_OK;
}

}  // extern "C"
