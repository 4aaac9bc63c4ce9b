#pragma once
// A finding: why a GPU is underused or unhealthy, with the numbers behind it. Plain values,
// independent of any output format (finding_json.hpp renders the JSON schema).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::diagnose {

enum class Severity : std::uint8_t { Info, Warning, Critical };
const char* to_string(Severity severity);  // "info", "warning", "critical"
std::optional<Severity> severity_from_string(std::string_view text);

// One occurrence of a problem that came and went (a grouped finding keeps them all).
struct Episode {
  std::chrono::system_clock::time_point start;
  std::chrono::system_clock::time_point end;
  Severity severity = Severity::Info;
  std::optional<double> impact;
  std::map<std::string, double> evidence;  // that episode's worst moment
};

// The job a finding belongs to, and its role in it (one cause per job, issue 23).
struct JobRef {
  std::string id;     // "run:12", "slurm:4711", "pod:ns/name", "pid:4242" (stable, for grouping)
  std::string label;  // shown to people: "job 4711 (alice, torchrun train.py)"
};

struct Finding {
  std::string kind;                        // stable id, kinds.hpp (e.g. "thermal_throttle")
  Severity severity = Severity::Info;      // the highest reached while active
  std::vector<unsigned> gpus;              // NVML indices of every GPU involved
  std::vector<std::string> uuids;          // same order as gpus ("" when not read)
  std::chrono::system_clock::time_point start;  // first sample the condition held
  std::chrono::system_clock::time_point end;    // last sample it held (still moving while active)
  bool active = true;                      // false once the condition cleared (with hysteresis)
  std::optional<std::uint32_t> pid;        // per-process kinds (memory_leak, idle_process)
  std::map<std::string, double> evidence;  // named numbers in base units (suffix says the unit)
  std::string detail;                      // the evidence in one human sentence
  std::optional<double> impact;            // estimated share of GPU time/throughput lost, 0..1
  std::vector<std::string> advice;         // concrete things to try
  std::string summary;                     // one line for `status` under the GPU
  // What limited the GPU, for the kinds that name it (issue 25): input_starved's "cpu_bound",
  // "io_bound" or "unknown"; comm_bound's "network"; host_memory_pressure's "memory". "" none.
  std::string cause;
  // Grouping (finding_groups.hpp): a problem that recurred over a range is one finding.
  std::vector<Episode> episodes;           // every occurrence, by start (empty: not grouped, one episode start..end)
  std::optional<double> share;             // share of the diagnosed range it was active, 0..1 (grouped only)
  // Jobs: the cause is named once, the other GPUs of the job as its consequences.
  std::optional<JobRef> job;               // the job whose GPUs these are, when known
  std::vector<unsigned> cause_gpus;        // the GPUs that cause it (subset of gpus; empty: not split)
};

// Orders by start time, then GPU, then kind (stable output for reports and tests).
bool finding_before(const Finding& a, const Finding& b);

}  // namespace gpuwatch::diagnose
