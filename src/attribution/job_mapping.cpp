#include "attribution/job_mapping.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/bounded_read.hpp"

namespace gpuwatch::attribution {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<std::string> parse_job_mapping_file(std::string_view content) {
  std::vector<std::string> jobs;
  while (!content.empty()) {
    auto end = content.find('\n');
    std::string_view line = content.substr(0, end);
    content.remove_prefix(end == std::string_view::npos ? content.size() : end + 1);
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    auto last = line.find_last_not_of(" \t\r");
    jobs.emplace_back(line.substr(first, last - first + 1));
  }
  return jobs;
}

bool is_gpu_key(std::string_view name) {
  auto dot = name.find('.');
  if (dot == std::string_view::npos) return all_digits(name);
  return all_digits(name.substr(0, dot)) && all_digits(name.substr(dot + 1));
}

core::Result<JobMapping> read_job_mapping_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return core::make_error("hpc job mapping directory " + dir + " does not exist or is not a directory");
  }
  JobMapping mapping;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_gpu_key(name) || !it->is_regular_file(ec)) continue;
    // A regular file of at most 1 MiB (core/bounded_read.hpp): one swapped for a FIFO or a device
    // after the listing is skipped without blocking, as is one removed by an epilog meanwhile.
    auto text = core::read_regular_file(it->path().string(), "hpc job mapping file", core::kMaxConfigFileBytes);
    if (!text) continue;
    auto jobs = parse_job_mapping_file(*text);
    if (!jobs.empty()) mapping[name] = std::move(jobs);
  }
  if (ec) return core::make_error("cannot list hpc job mapping directory " + dir + ": " + ec.message(), ec.value());
  return mapping;
}

}  // namespace gpuwatch::attribution
