#include "diagnose/finding_json.hpp"

#include "diagnose/gpu_sample.hpp"

namespace gpuwatch::diagnose {

nlohmann::json to_json(const Finding& f) {
  nlohmann::json j;
  j["kind"] = f.kind;
  j["severity"] = to_string(f.severity);
  j["gpus"] = f.gpus;
  j["uuids"] = f.uuids;
  j["start"] = to_seconds(f.start);
  j["end"] = to_seconds(f.end);
  j["active"] = f.active;
  j["pid"] = f.pid ? nlohmann::json(*f.pid) : nlohmann::json(nullptr);
  nlohmann::json evidence = nlohmann::json::object();
  for (const auto& [k, v] : f.evidence) evidence[k] = v;
  j["evidence"] = std::move(evidence);
  j["detail"] = f.detail;
  j["impact"] = f.impact ? nlohmann::json(*f.impact) : nlohmann::json(nullptr);
  j["advice"] = f.advice;
  j["summary"] = f.summary;
  return j;
}

nlohmann::json findings_json(std::span<const Finding> findings) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : findings) arr.push_back(to_json(f));
  return nlohmann::json{{"findings", std::move(arr)}};
}

}  // namespace gpuwatch::diagnose
