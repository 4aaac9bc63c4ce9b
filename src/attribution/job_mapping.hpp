#pragma once
// dcgm-exporter's --hpc-job-mapping-dir, read the same way so that existing Slurm prologs keep
// working: one file per GPU, named by the GPU's index ("0", "1", ...; "<gpu>.<gi>" for a MIG GPU
// instance), holding the ids of the jobs that hold that GPU, one per line. The prolog writes the
// file, the epilog removes it (deploy/slurm/).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::attribution {

// GPU key ("0", "3.1") -> job ids, in file order.
using JobMapping = std::map<std::string, std::vector<std::string>>;

// The job ids of one file: one per line, surrounding blanks trimmed, empty lines skipped.
std::vector<std::string> parse_job_mapping_file(std::string_view content);

// Whether NAME is a GPU key: digits, or digits '.' digits.
bool is_gpu_key(std::string_view name);

// Every GPU file of DIR. Error: DIR is missing or not a directory (the caller says it once).
// Other files (editor backups, dotfiles) are skipped.
core::Result<JobMapping> read_job_mapping_dir(const std::string& dir);

}  // namespace gpuwatch::attribution
