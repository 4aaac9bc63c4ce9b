#pragma once
// Internal to src/nvml: how the field readers write readings (one Writer per source
// call) and the small generic readers shared by field_readers.cpp and
// extension_readers.cpp. Not part of the nvml API.
#include <cstdint>
#include <span>
#include <string>

#include "core/field_table.hpp"
#include "core/snapshot.hpp"
#include "nvml/field_readers.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml::detail {

using core::FieldId;
using core::FieldReading;
using core::FieldValue;
using core::Source;

constexpr double kMilli = 1e-3;
constexpr double kPercent = 1e-2;
constexpr std::uint64_t kHzPerMHz = 1000000;
constexpr double kSecondsPerNs = 1e-9;

template <typename Fn, typename... Args>
nvmlReturn_t call(Fn* fn, Args... args) {
  return fn != nullptr ? fn(args...) : NVML_ERROR_FUNCTION_NOT_FOUND;
}

inline int arg_of(FieldId f) { return core::field_info(f).arg; }

// Writes the readings of one source and remembers the worst code.
struct Writer {
  std::span<const FieldId> fields;
  core::DeviceSnapshot& device;
  nvmlReturn_t worst = NVML_SUCCESS;

  void note(nvmlReturn_t rc) {
    if (rc == NVML_ERROR_GPU_IS_LOST || worst == NVML_SUCCESS) worst = rc;
  }
  void fail(FieldId f, nvmlReturn_t rc) {
    device.get(f) = FieldReading::absent(status_from_nvml(rc), error_from_nvml(rc));
    note(rc);
  }
  void fail_all(nvmlReturn_t rc) {
    for (auto f : fields) fail(f, rc);
  }
  void set(FieldId f, FieldValue v) {
    FieldReading& r = device.get(f);
    r.value.emplace(std::move(v));
    r.status = core::FieldStatus::Ok;
    r.reason = core::ErrorReason::None;
    r.vendor_code = 0;
  }
  // One call for all fields: on success `value_of(field)` gives each value.
  template <typename ValueOf>
  void all(nvmlReturn_t rc, ValueOf value_of) {
    if (rc != NVML_SUCCESS) return fail_all(rc);
    for (auto f : fields) set(f, value_of(f));
  }
  // One call per field (the argument differs): `read(field, &value)` returns the code.
  template <typename Read>
  void each(Read read) {
    for (auto f : fields) {
      FieldValue v;
      nvmlReturn_t rc = read(f, &v);
      if (rc == NVML_SUCCESS) {
        set(f, std::move(v));
      } else {
        fail(f, rc);
        if (rc == NVML_ERROR_GPU_IS_LOST) return fail_all(rc);
      }
    }
  }
};

template <typename Fn>
void read_string(Writer& w, Fn* fn, nvmlDevice_t dev) {
  char buf[128];
  buf[0] = '\0';
  nvmlReturn_t rc = call(fn, dev, buf, static_cast<unsigned>(sizeof buf));
  buf[sizeof buf - 1] = '\0';
  w.all(rc, [&](FieldId) { return FieldValue{std::string(buf)}; });
}

template <typename Fn>
void read_unsigned(Writer& w, Fn* fn, nvmlDevice_t dev) {
  unsigned v = 0;
  nvmlReturn_t rc = call(fn, dev, &v);
  w.all(rc, [&](FieldId) { return FieldValue{std::uint64_t{v}}; });
}

template <typename Fn>
void read_enabled(Writer& w, Fn* fn, nvmlDevice_t dev) {
  int v = 0;
  nvmlReturn_t rc = call(fn, dev, &v);
  w.all(rc, [&](FieldId) { return FieldValue{v == NVML_FEATURE_ENABLED}; });
}

template <typename Fn>
void read_milliwatts(Writer& w, Fn* fn, nvmlDevice_t dev) {
  unsigned mw = 0;
  nvmlReturn_t rc = call(fn, dev, &mw);
  w.all(rc, [&](FieldId) { return FieldValue{mw * kMilli}; });
}

template <typename Fn>
void read_engine_utilization(Writer& w, Fn* fn, nvmlDevice_t dev) {
  unsigned util = 0, period_us = 0;
  nvmlReturn_t rc = call(fn, dev, &util, &period_us);
  w.all(rc, [&](FieldId) { return FieldValue{util * kPercent}; });
}

template <typename Fn>
void read_clock(Writer& w, Fn* fn, nvmlDevice_t dev) {
  w.each([&](FieldId f, FieldValue* out) {
    unsigned mhz = 0;
    nvmlReturn_t rc = call(fn, dev, arg_of(f), &mhz);
    *out = std::uint64_t{mhz} * kHzPerMHz;
    return rc;
  });
}

// Sources that are gpuwatch extensions (not nvidia-smi query fields) and the
// mode getters: extension_readers.cpp. Returns false for any other source.
bool read_extension_source(Writer& w, const NvmlApi& api, nvmlDevice_t dev, core::Source source);

}  // namespace gpuwatch::nvml::detail
