#pragma once
// Which GPUs belong to "the job" (gpus="job"), decided again at every sample:
//   1. the GPUs running a process of this process's tree (itself and its descendants);
//   2. until one appears, the GPUs CUDA_VISIBLE_DEVICES names (indices, GPU UUIDs or a unique
//      prefix, MIG UUIDs of a GPU's MIG devices); as in CUDA, the list ends at the first
//      entry that names no GPU;
//   3. otherwise every GPU.
// Pure over a snapshot with processes and UUIDs; the process tree is read from /proc
// (injectable root for tests).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/snapshot.hpp"

namespace gpuwatch::capi {

// The NVML indices of the GPUs CUDA_VISIBLE_DEVICES names, in its order.
std::vector<unsigned> cuda_visible_gpus(const std::string& cuda_visible_devices, const core::Snapshot& snapshot);

// Rules 1-3 above. CUDA_VISIBLE_DEVICES: nullopt when unset.
std::vector<unsigned> job_gpus(const core::Snapshot& snapshot, const std::set<std::uint32_t>& tree_pids,
                               const std::optional<std::string>& cuda_visible_devices);

// ROOT and every process descending from it, from the parent ids in PROC_ROOT/<pid>/stat.
std::set<std::uint32_t> process_tree(std::uint32_t root, const std::string& proc_root = "/proc");

// The parent pid of a /proc/<pid>/stat line (the 4th field, counted after the last ')').
std::optional<std::uint32_t> parent_of_stat(const std::string& stat_line);

}  // namespace gpuwatch::capi
