#pragma once
// Why a GPU starves (issue 25): what the host did during its gaps, from its host window
// (gpu_state.hpp's HostChannel). cpu_bound: the host's CPUs, or the job's process tree (the GPU
// process and its DataLoader workers), saturated, or CPU pressure high; io_bound: iowait, I/O
// pressure or a disk busy; unknown: no host samples, or nothing stands out.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/gpu_state.hpp"

namespace gpuwatch::diagnose {

enum class StarvationCause : unsigned char { Unknown = 0, CpuBound = 1, IoBound = 2 };
std::string_view cause_id(StarvationCause cause);  // "unknown", "cpu_bound", "io_bound"

struct HostDuringGaps {
  bool seen = false;  // enough host samples during the gaps to judge (kHostMinGapWeight)
  StarvationCause cause = StarvationCause::Unknown;
  double gap_weight = 0;  // seconds-equivalent of gaps with a host sample
  std::optional<double> cpu_busy, iowait, cpu_pressure, io_pressure, disk_busy, tree_saturation, tree_cores;
  std::optional<double> tree_processes;  // mean over the samples with a tree
};

HostDuringGaps host_during_gaps(const HostWindow& w);

// The evidence of G (evidence keys "cause_code", "host_*_ratio_gaps", ...), added to EVIDENCE.
void add_cause_evidence(const HostDuringGaps& g, std::map<std::string, double>& evidence);
// "the host's CPUs 97 % busy in the gaps" and the like: what named the cause (or, for unknown,
// what was looked at).
std::string cause_words(const HostDuringGaps& g);
// The advice that follows the cause (empty for unknown: the kind's default advice stays).
std::vector<std::string> cause_advice(StarvationCause cause);

}  // namespace gpuwatch::diagnose
