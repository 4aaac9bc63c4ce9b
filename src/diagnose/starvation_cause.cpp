#include "diagnose/starvation_cause.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

// The metric's mean during the gaps (weighted by the gap weight); nullopt with too few gaps.
std::optional<double> during_gaps(const HostWindow& w, HostChannel gap_w) {
  const double weight = w.sum(gap_w);
  if (weight < kHostMinGapWeight) return std::nullopt;
  return w.sum(gap_w + 1) / weight;
}

// How far past its level a metric is (>= 1: past it), 0 when absent.
double past(const std::optional<double>& x, double level) { return x ? *x / level : 0; }

}  // namespace

std::string_view cause_id(StarvationCause cause) {
  switch (cause) {
    case StarvationCause::CpuBound: return "cpu_bound";
    case StarvationCause::IoBound: return "io_bound";
    case StarvationCause::Unknown: break;
  }
  return "unknown";
}

HostDuringGaps host_during_gaps(const HostWindow& w) {
  HostDuringGaps g;
  g.gap_weight = w.sum(kHostGapW);
  g.seen = w.sum(kHostN) >= kMinSamples && g.gap_weight >= kHostMinGapWeight;
  if (!g.seen) return g;
  g.cpu_busy = during_gaps(w, kCpuBusyGapW);
  g.iowait = during_gaps(w, kIowaitGapW);
  g.cpu_pressure = during_gaps(w, kCpuPsiGapW);
  g.io_pressure = during_gaps(w, kIoPsiGapW);
  g.disk_busy = during_gaps(w, kDiskBusyGapW);
  g.tree_saturation = during_gaps(w, kTreeSatGapW);
  g.tree_cores = during_gaps(w, kTreeCoresGapW);
  if (w.sum(kTreeProcsN) > 0) g.tree_processes = w.sum(kTreeProcsSum) / w.sum(kTreeProcsN);
  const double cpu = std::max({past(g.cpu_busy, kCpuBoundBusyRatio), past(g.tree_saturation, kCpuBoundTreeRatio),
                               past(g.cpu_pressure, kCpuBoundPressureRatio)});
  const double io = std::max({past(g.iowait, kIoBoundIowaitRatio), past(g.io_pressure, kIoBoundPressureRatio),
                              past(g.disk_busy, kIoBoundDiskBusyRatio)});
  // Both past their levels: the one further past (a loader waiting on reads keeps few CPUs busy).
  if (cpu >= 1 && cpu >= io) g.cause = StarvationCause::CpuBound;
  else if (io >= 1) g.cause = StarvationCause::IoBound;
  return g;
}

void add_cause_evidence(const HostDuringGaps& g, std::map<std::string, double>& evidence) {
  evidence["cause_code"] = static_cast<double>(g.cause);
  evidence["host_gap_s"] = g.gap_weight;
  auto put = [&](const char* key, const std::optional<double>& x) {
    if (x) evidence[key] = *x;
  };
  put("host_cpu_busy_ratio_gaps", g.cpu_busy);
  put("host_iowait_ratio_gaps", g.iowait);
  put("host_cpu_pressure_ratio_gaps", g.cpu_pressure);
  put("host_io_pressure_ratio_gaps", g.io_pressure);
  put("host_disk_busy_ratio_gaps", g.disk_busy);
  put("worker_saturation_ratio_gaps", g.tree_saturation);
  put("process_tree_cpu_cores_gaps", g.tree_cores);
  put("process_tree_processes", g.tree_processes);
}

std::string cause_words(const HostDuringGaps& g) {
  auto pct = [](double x) { return fmt::format("{:.0f} %", x * 100); };
  std::vector<std::string> parts;
  if (g.cause == StarvationCause::CpuBound) {
    if (g.tree_saturation && *g.tree_saturation >= kCpuBoundTreeRatio)
      // The saturation counts the trainer's own CPU with its workers' (cores / workers): said in
      // words without the share, which reads as more than 100 % per worker.
      parts.push_back(fmt::format("the job's {:.0f} processes (the trainer and {:.0f} workers) use {:.1f} cores: its "
                                  "workers are saturated",
                                  g.tree_processes.value_or(2), std::max(1.0, g.tree_processes.value_or(2) - 1),
                                  g.tree_cores.value_or(0)));
    if (g.cpu_busy && *g.cpu_busy >= kCpuBoundBusyRatio) parts.push_back("the host's CPUs " + pct(*g.cpu_busy) + " busy");
    if (g.cpu_pressure && *g.cpu_pressure >= kCpuBoundPressureRatio)
      parts.push_back("CPU pressure " + pct(*g.cpu_pressure));
  } else if (g.cause == StarvationCause::IoBound) {
    if (g.iowait && *g.iowait >= kIoBoundIowaitRatio) parts.push_back("iowait " + pct(*g.iowait));
    if (g.io_pressure && *g.io_pressure >= kIoBoundPressureRatio) parts.push_back("I/O pressure " + pct(*g.io_pressure));
    if (g.disk_busy && *g.disk_busy >= kIoBoundDiskBusyRatio) parts.push_back("a disk " + pct(*g.disk_busy) + " busy");
  } else {
    if (g.cpu_busy) parts.push_back("host CPU " + pct(*g.cpu_busy));
    if (g.tree_saturation) parts.push_back("workers " + pct(*g.tree_saturation) + " busy");
    if (g.iowait) parts.push_back("iowait " + pct(*g.iowait));
    if (g.io_pressure) parts.push_back("I/O pressure " + pct(*g.io_pressure));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

std::vector<std::string> cause_advice(StarvationCause cause) {
  switch (cause) {
    case StarvationCause::CpuBound:
      return {"raise DataLoader num_workers towards the CPU cores per GPU (the workers are saturated) and set "
              "persistent_workers=True",
              "move decoding/augmentation to the GPU (NVIDIA DALI, torchvision.io.decode_jpeg on the GPU)",
              "pre-process the dataset once (resized, tokenised) so each step does less CPU work"};
    case StarvationCause::IoBound:
      return {"read from faster storage: copy the dataset to a local NVMe disk, or cache it in RAM (the page cache)",
              "read larger sequential chunks: pack samples into shards (WebDataset, TFRecord) instead of many small files",
              "prefetch more: raise prefetch_factor and num_workers so reads overlap the steps"};
    case StarvationCause::Unknown: break;
  }
  return {};
}

}  // namespace gpuwatch::diagnose
