#include "nvml/gpm_reader.hpp"

#include <algorithm>
#include <set>

#include "core/field_table.hpp"
#include "nvml/field_readers.hpp"
#include "nvml/field_writer.hpp"

namespace gpuwatch::nvml {
namespace {

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

constexpr double kBytesPerMiB = 1048576.0;

const std::vector<unsigned>& device_metric_ids() {
  static const std::vector<unsigned> ids = [] {
    std::vector<unsigned> out;
    for (auto f : gpm_fields()) out.push_back(static_cast<unsigned>(core::field_info(f).arg));
    return out;
  }();
  return ids;
}

// The GPU instances' ids: the device fields, then PCIe traffic.
const std::vector<unsigned>& instance_metric_ids() {
  static const std::vector<unsigned> ids = [] {
    std::vector<unsigned> out = device_metric_ids();
    out.push_back(NVML_GPM_METRIC_PCIE_TX_PER_SEC);
    out.push_back(NVML_GPM_METRIC_PCIE_RX_PER_SEC);
    return out;
  }();
  return ids;
}

void write_all(core::DeviceSnapshot& device, FieldStatus status, int code) {
  for (auto f : gpm_fields()) device.get(f) = FieldReading::absent(status, error_from_nvml(static_cast<nvmlReturn_t>(code)));
}

}  // namespace

nvmlReturn_t gpm_supported(const NvmlApi& api, nvmlDevice_t dev, bool* supported) {
  nvmlGpmSupport_t s{};
  s.version = NVML_GPM_SUPPORT_VERSION;
  nvmlReturn_t rc = GW_NVML_CALL(api.raw(), nvmlGpmQueryDeviceSupport, dev, &s);
  if (rc == NVML_ERROR_NOT_SUPPORTED) {
    *supported = false;
    return NVML_SUCCESS;
  }
  if (rc == NVML_SUCCESS) *supported = s.isSupportedDevice != 0;
  return rc;
}

const std::vector<FieldId>& gpm_fields() {
  static const std::vector<FieldId> fields = [] {
    std::vector<FieldId> out;
    for (const auto& f : core::field_table())
      if (f.source == core::Source::Gpm) out.push_back(f.id);
    return out;
  }();
  return fields;
}

GpmReader::~GpmReader() { reset(); }

void GpmReader::release(Window& window) {
  for (nvmlGpmSample_t* s : {&window.previous, &window.current}) {
    if (*s) GW_NVML_CALL(api_.raw(), nvmlGpmSampleFree, *s);
    *s = nullptr;
  }
  window.has_previous = false;
}

void GpmReader::reset() {
  release(device_);
  for (auto& [key, window] : instances_) release(window);
  instances_.clear();
  supported_.reset();
}

std::optional<FieldStatus> GpmReader::support(nvmlDevice_t dev, int* code) {
  if (!supported_) {
    bool supported = false;
    nvmlReturn_t rc = gpm_supported(api_, dev, &supported);
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_FUNCTION_NOT_FOUND) {
      *code = rc;
      return FieldStatus::Failed;  // transient: asked again next time
    }
    supported_ = rc == NVML_SUCCESS && supported;
    support_code_ = rc == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : rc;
  }
  if (*supported_) return std::nullopt;
  *code = support_code_;
  return status_from_nvml(support_code_);
}

template <class Take>
GpmReader::Metrics GpmReader::sample(Window& window, const std::vector<unsigned>& ids, Take take) {
  Metrics m;
  const NvmlFunctions& f = api_.raw();
  for (nvmlGpmSample_t* s : {&window.previous, &window.current}) {
    if (*s) continue;
    m.code = GW_NVML_CALL(f, nvmlGpmSampleAlloc, s);
    if (m.code != NVML_SUCCESS) {
      *s = nullptr;
      return m;
    }
  }
  m.code = take(window.current);
  if (m.code != NVML_SUCCESS) {
    window.has_previous = false;  // the next window starts at the next good sample
    return m;
  }
  if (window.has_previous) {
    nvmlGpmMetricsGet_t request{};
    request.version = NVML_GPM_METRICS_GET_VERSION;
    request.numMetrics = static_cast<unsigned>(std::min<std::size_t>(ids.size(), NVML_GPM_METRIC_MAX));
    request.sample1 = window.previous;
    request.sample2 = window.current;
    for (unsigned i = 0; i < request.numMetrics; ++i) request.metrics[i].metricId = ids[i];
    if (GW_NVML_CALL(f, nvmlGpmMetricsGet, &request) == NVML_SUCCESS) {
      m.ready = true;
      m.values.resize(ids.size());
      for (unsigned i = 0; i < request.numMetrics; ++i)
        if (request.metrics[i].nvmlReturn == NVML_SUCCESS) m.values[i] = std::max(0.0, request.metrics[i].value);
    }
  }
  std::swap(window.previous, window.current);
  window.has_previous = true;
  return m;
}

nvmlReturn_t GpmReader::read_device(nvmlDevice_t dev, core::DeviceSnapshot& device) {
  int code = 0;
  if (auto status = support(dev, &code)) {
    write_all(device, *status, code);
    return code == NVML_ERROR_GPU_IS_LOST ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
  }
  Metrics m = sample(device_, device_metric_ids(), [&](nvmlGpmSample_t s) {
    return GW_NVML_CALL(api_.raw(), nvmlGpmSampleGet, dev, s);
  });
  if (m.code != NVML_SUCCESS) {
    write_all(device, status_from_nvml(m.code), m.code);  // NOT_SUPPORTED: a parent in MIG mode
    return m.code;
  }
  const auto& fields = gpm_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (m.ready && m.values[i]) {
      device.get(fields[i]) = FieldReading::of(*m.values[i] * detail::kPercent);
    } else {
      device.get(fields[i]) = FieldReading::absent(m.ready ? FieldStatus::NotSupported : FieldStatus::NotRead, {});
    }
  }
  return NVML_SUCCESS;
}

void GpmReader::read_gpu_instances(nvmlDevice_t dev, core::DeviceSnapshot& device) {
  device.gpu_instance_activity.clear();
  int code = 0;
  if (device.mig_devices.empty() || support(dev, &code)) {
    for (auto& [key, window] : instances_) release(window);
    instances_.clear();
    return;
  }
  std::set<std::pair<std::uint32_t, std::string>> seen;
  for (const auto& mig : device.mig_devices) {
    auto key = std::make_pair(mig.gpu_instance_id, mig.profile);
    if (!seen.insert(key).second) continue;  // one GPU instance, several compute instances
    Metrics m = sample(instances_[key], instance_metric_ids(), [&](nvmlGpmSample_t s) {
      return GW_NVML_CALL(api_.raw(), nvmlGpmMigSampleGet, dev, mig.gpu_instance_id, s);
    });
    if (!m.ready) continue;
    core::GpuInstanceActivity activity;
    activity.gpu_instance_id = mig.gpu_instance_id;
    const auto& fields = gpm_fields();
    for (std::size_t i = 0; i < fields.size(); ++i)
      if (m.values[i]) activity.ratios.emplace_back(fields[i], *m.values[i] * detail::kPercent);
    const std::size_t tx = fields.size(), rx = fields.size() + 1;
    if (m.values[tx]) activity.pcie_tx_bytes_per_s = *m.values[tx] * kBytesPerMiB;
    if (m.values[rx]) activity.pcie_rx_bytes_per_s = *m.values[rx] * kBytesPerMiB;
    device.gpu_instance_activity.push_back(std::move(activity));
  }
  // Instances that disappeared (or changed shape under the same id) start over.
  for (auto it = instances_.begin(); it != instances_.end();) {
    if (seen.count(it->first)) {
      ++it;
    } else {
      release(it->second);
      it = instances_.erase(it);
    }
  }
}

}  // namespace gpuwatch::nvml
