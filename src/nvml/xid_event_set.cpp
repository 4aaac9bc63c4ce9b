#include "nvml/xid_event_set.hpp"

#include <algorithm>

namespace gpuwatch::nvml {
nvmlReturn_t wait_xid_event(const NvmlFunctions& f, nvmlEventSet_t set, unsigned timeout_ms,
                            nvmlDevice_t& device, unsigned long long& type, unsigned long long& data) {
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

std::vector<std::pair<nvmlDevice_t, unsigned>> register_xid_gpus(const NvmlApi& api, nvmlEventSet_t set,
                                                                 unsigned gpu_count) {
  const NvmlFunctions& f = api.raw();
  std::vector<std::pair<nvmlDevice_t, unsigned>> handles;
  for (unsigned i = 0; i < gpu_count; ++i) {
    nvmlDevice_t dev = nullptr;
    if (api.handle_by_index(i, &dev) != NVML_SUCCESS) continue;
    unsigned long long supported = 0;
    if (GW_NVML_CALL(f, nvmlDeviceGetSupportedEventTypes, dev, &supported) != NVML_SUCCESS ||
        (supported & nvmlEventTypeXidCriticalError) == 0)
      continue;
    if (GW_NVML_CALL(f, nvmlDeviceRegisterEvents, dev, nvmlEventTypeXidCriticalError, set) != NVML_SUCCESS) continue;
    handles.emplace_back(dev, i);
  }
  return handles;
}

XidEventSet::XidEventSet(const NvmlApi& api, unsigned gpu_count) : api_(api) {
  if (GW_NVML_CALL(api.raw(), nvmlEventSetCreate, &set_) != NVML_SUCCESS) {
    set_ = nullptr;
    return;
  }
  handles_ = register_xid_gpus(api, set_, gpu_count);
}

XidEventSet::~XidEventSet() {
  if (set_ != nullptr) GW_NVML_CALL(api_.raw(), nvmlEventSetFree, set_);
}

std::vector<unsigned> XidEventSet::watched_gpus() const {
  std::vector<unsigned> out;
  for (const auto& h : handles_) out.push_back(h.second);
  return out;
}

backend::EventSource::Wait XidEventSet::wait(unsigned timeout_ms, backend::DeviceEvent& event) {
  if (set_ == nullptr || handles_.empty()) return Wait::TimedOut;
  nvmlDevice_t device = nullptr;
  unsigned long long type = 0, data = 0;
  const nvmlReturn_t rc = wait_xid_event(api_.raw(), set_, timeout_ms, device, type, data);
  if (rc == NVML_ERROR_TIMEOUT) return Wait::TimedOut;
  if (rc != NVML_SUCCESS) return Wait::Failed;
  if ((type & nvmlEventTypeXidCriticalError) == 0) return Wait::Skipped;
  auto found = std::find_if(handles_.begin(), handles_.end(), [&](const auto& h) { return h.first == device; });
  if (found == handles_.end()) return Wait::Skipped;  // not one of ours (a MIG handle we did not register)
  event.gpu = found->second;
  event.code = data;
  return Wait::Event;
}

}  // namespace gpuwatch::nvml
