#include "live/diagnosis_input.hpp"

namespace gpuwatch::live {

DiagnosisInput make_diagnosis_input(const core::Snapshot& latest, const std::vector<std::optional<double>>& sample_age_s,
                                    double stale_after_s, std::vector<XidCount> xids) {
  DiagnosisInput input;
  input.snapshot.device_count = latest.device_count;
  input.snapshot.driver_version = latest.driver_version;
  input.snapshot.host = latest.host;  // issue 25: the diagnosis sees the host through the snapshot
  for (std::size_t i = 0; i < sample_age_s.size() && i < latest.devices.size(); ++i) {
    DiagnosisInput::Freshness fresh;
    fresh.index = static_cast<unsigned>(i);
    if (const auto& age = sample_age_s[i]) {
      input.snapshot.devices.push_back(latest.devices[i]);  // a GPU that never answered is left out
      fresh.has_sample = true;
      fresh.age_s = *age;
      fresh.stale = *age > stale_after_s;
    }
    input.freshness.push_back(fresh);
  }
  input.xids = std::move(xids);
  return input;
}

}  // namespace gpuwatch::live
