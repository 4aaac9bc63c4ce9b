#include "exporter/xid_event_set.hpp"

#include <algorithm>

namespace gpuwatch::exporter {
namespace {

// One wait on the set, through whichever symbol the library has.
nvmlReturn_t wait_event(const nvml::NvmlFunctions& f, nvmlEventSet_t set, unsigned timeout_ms, nvmlDevice_t& device,
                        unsigned long long& type, unsigned long long& data) {
  if (f.nvmlEventSetWait_v2 != nullptr) {
    nvmlEventData_t e{};
    nvmlReturn_t rc = f.nvmlEventSetWait_v2(set, &e, timeout_ms);
    device = e.device, type = e.eventType, data = e.eventData;
    return rc;
  }
  if (f.nvmlEventSetWait != nullptr) {
    nvmlEventData_v1_t e{};
    nvmlReturn_t rc = f.nvmlEventSetWait(set, &e, timeout_ms);
    device = e.device, type = e.eventType, data = e.eventData;
    return rc;
  }
  return NVML_ERROR_FUNCTION_NOT_FOUND;
}

}  // namespace

XidEventSet::XidEventSet(const nvml::NvmlApi& api, unsigned gpu_count) : api_(api) {
  const nvml::NvmlFunctions& f = api.raw();
  if (GW_NVML_CALL(f, nvmlEventSetCreate, &set_) != NVML_SUCCESS) {
    set_ = nullptr;
    return;
  }
  for (unsigned i = 0; i < gpu_count; ++i) {
    nvmlDevice_t dev = nullptr;
    if (api.handle_by_index(i, &dev) != NVML_SUCCESS) continue;
    unsigned long long supported = 0;
    if (GW_NVML_CALL(f, nvmlDeviceGetSupportedEventTypes, dev, &supported) != NVML_SUCCESS ||
        (supported & nvmlEventTypeXidCriticalError) == 0)
      continue;
    if (GW_NVML_CALL(f, nvmlDeviceRegisterEvents, dev, nvmlEventTypeXidCriticalError, set_) != NVML_SUCCESS) continue;
    handles_.emplace_back(dev, i);
  }
}

XidEventSet::~XidEventSet() {
  if (set_ != nullptr) GW_NVML_CALL(api_.raw(), nvmlEventSetFree, set_);
}

std::vector<unsigned> XidEventSet::watched_gpus() const {
  std::vector<unsigned> out;
  for (const auto& h : handles_) out.push_back(h.second);
  return out;
}

std::vector<XidEvent> XidEventSet::drain(std::size_t max) {
  std::vector<XidEvent> out;
  if (set_ == nullptr || handles_.empty()) return out;
  while (out.size() < max) {
    nvmlDevice_t device = nullptr;
    unsigned long long type = 0, data = 0;
    if (wait_event(api_.raw(), set_, 0, device, type, data) != NVML_SUCCESS) break;  // TIMEOUT: none waiting
    if ((type & nvmlEventTypeXidCriticalError) == 0) continue;
    auto found = std::find_if(handles_.begin(), handles_.end(), [&](const auto& h) { return h.first == device; });
    if (found == handles_.end()) continue;  // not one of ours (a MIG handle we did not register)
    out.push_back({found->second, data});
  }
  return out;
}

}  // namespace gpuwatch::exporter
