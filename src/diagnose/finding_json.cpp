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
  j["cause"] = f.cause.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.cause);
  nlohmann::json episodes = nlohmann::json::array();
  for (const auto& e : f.episodes) {
    nlohmann::json ej;
    ej["start"] = to_seconds(e.start);
    ej["end"] = to_seconds(e.end);
    ej["severity"] = to_string(e.severity);
    ej["impact"] = e.impact ? nlohmann::json(*e.impact) : nlohmann::json(nullptr);
    nlohmann::json ev = nlohmann::json::object();
    for (const auto& [k, v] : e.evidence) ev[k] = v;
    ej["evidence"] = std::move(ev);
    episodes.push_back(std::move(ej));
  }
  j["episodes"] = std::move(episodes);
  j["share"] = f.share ? nlohmann::json(*f.share) : nlohmann::json(nullptr);
  if (f.job) {
    j["job"] = nlohmann::json{{"id", f.job->id}, {"label", f.job->label}};
  } else {
    j["job"] = nullptr;
  }
  j["cause_gpus"] = f.cause_gpus;
  return j;
}

nlohmann::json findings_json(std::span<const Finding> findings) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : findings) arr.push_back(to_json(f));
  return nlohmann::json{{"findings", std::move(arr)}};
}

}  // namespace gpuwatch::diagnose
