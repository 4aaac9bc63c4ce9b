#include "jobs/steps_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/bounded_read.hpp"
#include "diagnose/kinds.hpp"
#include "diagnose/thresholds.hpp"

namespace gpuwatch::jobs {
namespace {

std::optional<double> finite_number(const nlohmann::json& j) {
  if (!j.is_number()) return std::nullopt;
  double v = j.get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// An optional integer key: absent or null is fine; anything else but an integer spoils the line.
bool optional_integer(const nlohmann::json& line, const char* key, std::optional<std::int64_t>& out) {
  auto it = line.find(key);
  if (it == line.end() || it->is_null()) return true;
  if (!it->is_number_integer()) return false;
  out = it->get<std::int64_t>();
  return true;
}

std::optional<StepRow> parse_line(std::string_view text) {
  auto line = nlohmann::json::parse(text, nullptr, false);
  if (line.is_discarded() || !line.is_object()) return std::nullopt;
  StepRow row;
  auto step = line.find("step");
  if (step == line.end() || !step->is_number_integer()) return std::nullopt;
  row.step = step->get<std::int64_t>();
  auto number = [&](const char* key) { return line.contains(key) ? finite_number(line[key]) : std::nullopt; };
  auto time = number("time"), wait = number("data_wait_s"), compute = number("compute_s");
  if (!time || !wait || !compute || *wait < 0 || *compute < 0) return std::nullopt;
  row.time_s = *time;
  row.data_wait_s = *wait;
  row.compute_s = *compute;
  if (auto loss = line.find("loss"); loss != line.end() && !loss->is_null()) {
    row.loss = finite_number(*loss);
    if (!row.loss) return std::nullopt;
  }
  if (!optional_integer(line, "allocated_bytes", row.allocated_bytes) ||
      !optional_integer(line, "reserved_bytes", row.reserved_bytes) ||
      !optional_integer(line, "num_alloc_retries", row.num_alloc_retries) ||
      !optional_integer(line, "num_ooms", row.num_ooms) || !optional_integer(line, "samples", row.samples))
    return std::nullopt;
  return row;
}

}  // namespace

StepsFile parse_steps(std::string_view text) {
  StepsFile out;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (auto row = parse_line(line)) out.rows.push_back(std::move(*row));
    else ++out.malformed;
  }
  return out;
}

core::Result<StepsFile> read_steps_file(const std::string& path, std::uint64_t max_bytes) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return StepsFile{};  // the job wrote no steps
  if (!S_ISREG(st.st_mode)) return core::make_error(path + ": the steps file is not a regular file; not read");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return core::make_error(fmt::format("{}: the steps file has {} bytes, more than the {} read; not read", path,
                                        st.st_size, max_bytes));
  // The read itself bounded too (core/bounded_read.hpp): a file swapped for a FIFO or a device
  // after the lstat is refused without blocking, one grown past MAX_BYTES is not read whole.
  auto text = core::read_regular_file(path, "steps file", static_cast<std::size_t>(max_bytes));
  if (!text) return core::make_error(text.error().message);
  return parse_steps(*text);
}

std::optional<double> data_wait_share(const std::vector<StepRow>& rows) {
  double wait = 0, total = 0;
  for (const auto& r : rows) {
    wait += r.data_wait_s;
    total += r.data_wait_s + r.compute_s;
  }
  if (rows.empty() || total <= 0) return std::nullopt;
  return wait / total;
}

std::optional<std::pair<std::chrono::system_clock::time_point, std::chrono::system_clock::time_point>> steps_time_range(
    const std::vector<StepRow>& rows) {
  if (rows.empty()) return std::nullopt;
  double first = rows.front().time_s - rows.front().data_wait_s - rows.front().compute_s, last = rows.front().time_s;
  for (const auto& r : rows) {
    first = std::min(first, r.time_s - r.data_wait_s - r.compute_s);
    last = std::max(last, r.time_s);
  }
  using Clock = std::chrono::system_clock;
  auto at = [](double s) {
    return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)));
  };
  return std::make_pair(at(first), at(last));
}

std::optional<diagnose::Finding> measured_starvation(double share, std::size_t steps, const std::vector<unsigned>& gpus,
                                                     const std::vector<std::string>& uuids) {
  namespace t = diagnose::thresholds;
  if (share < t::kStarvedInfoShare) return std::nullopt;
  diagnose::Finding f;
  f.kind = std::string(diagnose::kind_id(diagnose::Kind::InputStarved));
  f.severity = share >= t::kStarvedWarnShare ? diagnose::Severity::Warning : diagnose::Severity::Info;
  f.gpus = gpus;
  f.uuids = uuids;
  f.active = false;
  f.evidence = {{"data_wait_ratio", share}, {"steps", static_cast<double>(steps)}};
  f.impact = share;
  const int percent = static_cast<int>(std::lround(share * 100));
  f.detail = fmt::format("measured from inside the job: {} % of step time waiting for data ({} steps)", percent, steps);
  f.summary = fmt::format("measured from inside the job: {} % of step time waiting for data", percent);
  f.advice = diagnose::default_advice(diagnose::Kind::InputStarved);
  return f;
}

}  // namespace gpuwatch::jobs
