#pragma once
// nvidia-smi pmon's scrolling per-process table, as pure functions: the two header
// lines and one row per process (or one "-" row for a GPU with no process). Absent
// values print as "-" exactly as nvidia-smi does.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::pmon {

struct PmonOptions {
  bool utilization = true;  // -s u: sm mem enc dec jpg ofa
  bool memory = false;      // -s m: fb ccpm
  bool owner = false;       // --owner: a last column with the container, pod or Slurm job (issue 15)
};

// "-s" letters u and/or m. Default "u".
core::Result<void> parse_pmon_select(std::string_view letters, PmonOptions& options);

// The two '#' lines, each ending in '\n'.
std::string pmon_header(const PmonOptions& options);

struct PmonRow {
  unsigned gpu = 0;
  std::optional<unsigned> pid;  // nullopt: the GPU has no process; the whole row is "-"
  core::ProcessType type = core::ProcessType::Compute;  // printed as C, G or C+G
  std::optional<std::int64_t> sm_pct, mem_pct, enc_pct, dec_pct, jpg_pct, ofa_pct;
  std::optional<std::int64_t> fb_mb, ccpm_mb;
  std::string command;  // the process name (at most 15 characters are shown)
  std::optional<std::string> owner;  // "pod ml/trainer-0", "job 77.0"; absent: "-"
};

// One line ending in '\n'.
std::string pmon_row(const PmonOptions& options, const PmonRow& row);

}  // namespace gpuwatch::pmon
