#include "sim/engine/capture_import.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <optional>
#include <filesystem>
#include <map>
#include <sstream>
#include <fmt/format.h>

#include "sim/engine/catalog.hpp"
#include "sim/engine/query_keys.hpp"
#include "sim/engine/replay_source.hpp"
#include "sim/engine/value.hpp"
#include "sim/engine/value_limits.hpp"

namespace gpuwatch::sim {
namespace {

std::string first_line(std::string_view s) {
  auto end = s.find('\n');
  std::string line(s.substr(0, end));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::string header_name(const std::string& h) { return h.substr(0, h.find(" [")); }

struct ImportedGpu {
  std::string id;  // bus id or uuid
  double first_ts = 0;  // the first row's time (epoch seconds), when the log has one
  bool has_first_ts = false;
  std::vector<std::pair<Key, std::string>> values;  // in capture column order
  std::vector<std::pair<double, std::vector<std::pair<Key, std::string>>>> later_rows;
  struct Proc { unsigned pid; std::string name; std::string memory; };
  std::vector<Proc> processes;
  std::vector<std::pair<Key, std::string>> extras;  // from -q
  struct Mig { std::string profile; std::string memory, used, gpu_instance, compute_instance; };
  std::vector<Mig> mig;
  std::string bus_id, uuid, index;
};

// "1e999 W", "1e400": digits a double cannot hold (parse_value keeps them as text, which the
// scenario loader then refuses as "expected a number").
std::string trimmed(const std::string& cell) {
  const auto first = cell.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return cell.substr(first, cell.find_last_not_of(' ') - first + 1);
}

// A MIG instance's "Total" memory (MiB text) in whole GB, rounded up, for its profile name
// ("3g.40gb"); 0 when it is not a sensible number (never an int overflow).
long long mig_gigabytes(const std::string& mib) {
  const double v = std::strtod(mib.c_str(), nullptr);
  if (!std::isfinite(v) || v <= 0 || v > 1e9) return 0;
  return static_cast<long long>(std::ceil(v / 1024));
}

bool too_large_for_a_number(const std::string& cell) {
  std::size_t start = cell.find_first_not_of(' ');
  if (start == std::string::npos) return false;
  std::string number = cell.substr(start, cell.find(' ', start) - start);
  if (number.empty() || !(std::isdigit(static_cast<unsigned char>(number[0])) || number[0] == '-' || number[0] == '.'))
    return false;
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  return end != nullptr && *end == '\0' && !std::isfinite(value);
}

struct Importer {
  std::vector<ImportedGpu> gpus;
  std::size_t process_count = 0;  // across every --query-compute-apps capture (kMaxScenarioProcesses)
  std::string driver_version;
  std::string cuda_version;
  std::vector<std::string> sources;
  bool keep_time = false;
  std::optional<double> log_start;  // the earliest timestamp of every --query-gpu log (keep_time)

  // The GPU with this identity: by PCI bus id, else UUID, else index (a capture of
  // `--query-gpu=index,name,...` has only the index: two rows are two GPUs, issue 9).
  // A row with no identity at all is the one GPU's (a single-GPU capture, or its -l log).
  ImportedGpu* find_gpu(const std::string& bus, const std::string& uuid, const std::string& index = "") {
    for (auto& g : gpus) {
      if (!bus.empty() && !g.bus_id.empty()) {
        if (g.bus_id == bus) return &g;
      } else if (!uuid.empty() && !g.uuid.empty()) {
        if (g.uuid == uuid) return &g;
      } else if (!index.empty() && !g.index.empty()) {
        if (g.index == index) return &g;
      }
    }
    if (gpus.size() == 1 && bus.empty() && uuid.empty() && index.empty()) return &gpus[0];
    return nullptr;
  }

  core::Result<void> query_gpu(const CaptureFile& f) {
    auto lines = lines_of(f.content);
    auto header = split_csv_line(lines.at(0));
    std::vector<std::optional<Key>> keys;
    int bus_col = -1, uuid_col = -1, index_col = -1, ts_col = -1;
    for (std::size_t i = 0; i < header.size(); ++i) {
      auto name = header_name(header[i]);
      // "time": the first column of gpuwatch's own logs (record --csv, history --format csv).
      auto k = name == "time" ? std::optional<Key>(Key::Timestamp) : find_key(name);
      if (!k) return core::make_error(fmt::format("{}:1: column '{}' is not a known query name", f.label, clip_for_message(name)));
      keys.push_back(k);
      if (*k == Key::PciBusId) bus_col = static_cast<int>(i);
      if (*k == Key::Uuid) uuid_col = static_cast<int>(i);
      if (*k == Key::Index) index_col = static_cast<int>(i);
      if (*k == Key::Timestamp) ts_col = static_cast<int>(i);
    }
    std::map<std::string, double> first_ts;
    // No bus id, UUID or index column: the GPUs of a multi-GPU log are told apart by their
    // position among the rows of one sample (rows less than 0.25 s apart), never merged.
    const bool by_position = bus_col < 0 && uuid_col < 0 && index_col < 0 && ts_col >= 0;
    double sample_start = 0;
    bool in_sample = false;
    unsigned position = 0;
    for (std::size_t ln = 1; ln < lines.size(); ++ln) {
      if (lines[ln].find_first_not_of(" \t") == std::string::npos) continue;
      auto cells = split_csv_line(lines[ln]);
      if (cells.size() != header.size())
        return core::make_error(fmt::format("{}:{}: {} cells but the header has {}", f.label, ln + 1, cells.size(), header.size()));
      std::string bus = bus_col >= 0 ? cells[static_cast<std::size_t>(bus_col)] : "";
      std::string uuid = uuid_col >= 0 ? cells[static_cast<std::size_t>(uuid_col)] : "";
      std::string index = index_col >= 0 ? cells[static_cast<std::size_t>(index_col)] : "";
      if (by_position) {
        double row_ts = 0;
        if (parse_timestamp(cells[static_cast<std::size_t>(ts_col)], row_ts)) {
          if (!in_sample || row_ts < sample_start || row_ts - sample_start > 0.25) {
            sample_start = row_ts;
            in_sample = true;
            position = 0;
          } else {
            ++position;
          }
        }
        index = "position " + std::to_string(position);
      }
      const std::string identity = bus + "|" + uuid + "|" + index;
      std::vector<std::pair<Key, std::string>> vals;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        Value v = parse_value(cells[i]);
        // Checked before anything is written: the scenario must load (no 1e999 in it).
        if (too_large_for_a_number(cells[i]))
          return core::make_error(fmt::format("{}:{}: column '{}': '{}' is not a finite number", f.label, ln + 1,
                                              key_info(*keys[i]).name, clip_for_message(trimmed(cells[i]))));
        if (v.is_number()) {
          if (auto problem = value_range_problem(*keys[i], v.number); !problem.empty())
            return core::make_error(fmt::format("{}:{}: column '{}': '{}' is {}", f.label, ln + 1,
                                                key_info(*keys[i]).name, clip_for_message(trimmed(cells[i])), problem));
        }
        vals.emplace_back(*keys[i], display_text(v));
        if (*keys[i] == Key::DriverVersion && v.kind == Value::Kind::Text) driver_version = v.text;
        if (*keys[i] == Key::DriverVersion && v.is_number()) driver_version = v.text;
      }
      double ts = 0;
      bool has_ts = ts_col >= 0 && parse_timestamp(cells[static_cast<std::size_t>(ts_col)], ts);
      if (keep_time && !has_ts)
        return core::make_error(fmt::format("{}:{}: --keep-time needs a timestamp in every row (a timestamp or time column)",
                                            f.label, ln + 1));
      if (has_ts && (!log_start || ts < *log_start)) log_start = ts;
      // A new GPU unless this is a later sample of one we have (a -l log).
      ImportedGpu* g = find_gpu(bus, uuid, index);
      if (!g) {
        gpus.emplace_back();
        g = &gpus.back();
        g->bus_id = bus;
        g->uuid = uuid;
        g->index = index;
        g->values = std::move(vals);
        if (has_ts) {
          first_ts[identity] = ts;
          g->first_ts = ts;
          g->has_first_ts = true;
        }
        continue;
      }
      if (g->values.empty()) { g->values = std::move(vals); continue; }
      // A later sample of the same GPU: every value of the row (issue 24). A replay row holds
      // its values until the next row sets them, so a value left out because it equals the
      // FIRST row's would replay the previous row's instead (0 -> 90 -> 0 became 0 -> 90 -> 90).
      std::vector<std::pair<Key, std::string>> changed;
      for (const auto& val : vals) {
        if (val.first != Key::Timestamp) changed.push_back(val);
      }
      // To the microsecond: epoch seconds in a double carry ~1e-7 s of noise ("0.0999999").
      double t = has_ts ? std::round((ts - first_ts[identity]) * 1e6) / 1e6 : static_cast<double>(g->later_rows.size() + 1);
      g->later_rows.emplace_back(t, std::move(changed));
    }
    return {};
  }

  core::Result<void> compute_apps(const CaptureFile& f) {
    auto lines = lines_of(f.content);
    auto header = split_csv_line(lines.at(0));
    int pid_col = -1, name_col = -1, mem_col = -1, bus_col = -1, uuid_col = -1;
    for (std::size_t i = 0; i < header.size(); ++i) {
      auto n = header_name(header[i]);
      int c = static_cast<int>(i);
      if (n == "pid") pid_col = c;
      if (n == "process_name" || n == "name") name_col = c;
      if (n == "used_gpu_memory" || n == "used_memory") mem_col = c;
      if (n == "gpu_bus_id") bus_col = c;
      if (n == "gpu_uuid") uuid_col = c;
    }
    if (pid_col < 0) return core::make_error(fmt::format("{}:1: a --query-compute-apps CSV needs a pid column", f.label));
    for (std::size_t ln = 1; ln < lines.size(); ++ln) {
      if (lines[ln].find_first_not_of(" \t") == std::string::npos) continue;
      auto cells = split_csv_line(lines[ln]);
      if (cells.size() != header.size())
        return core::make_error(fmt::format("{}:{}: {} cells but the header has {}", f.label, ln + 1, cells.size(), header.size()));
      auto cell = [&](int c) { return c >= 0 ? cells[static_cast<std::size_t>(c)] : std::string(); };
      ImportedGpu* g = gpus.size() == 1 ? &gpus[0] : find_gpu(cell(bus_col), cell(uuid_col));
      if (!g && bus_col < 0 && uuid_col < 0)  // never GPU 0 by default: say what is missing
        return core::make_error(fmt::format(
            "{}: {} GPUs in the --query-gpu capture, and this --query-compute-apps capture does not say which GPU "
            "each process is on: capture it with gpu_bus_id or gpu_uuid (--query-compute-apps=gpu_bus_id,pid,"
            "process_name,used_memory)", f.label, gpus.size()));
      if (!g) {
        const bool has_ids = std::any_of(gpus.begin(), gpus.end(), [&](const ImportedGpu& x) {
          return bus_col >= 0 ? !x.bus_id.empty() : !x.uuid.empty();
        });
        if (!has_ids)
          return core::make_error(fmt::format(
              "{}:{}: the --query-gpu capture has no {} column to match this process's GPU '{}' with: capture it "
              "with pci.bus_id or uuid", f.label, ln + 1, bus_col >= 0 ? "pci.bus_id" : "uuid",
              clip_for_message(bus_col >= 0 ? cell(bus_col) : cell(uuid_col))));
        return core::make_error(fmt::format("{}:{}: no GPU with {} '{}' in the --query-gpu capture", f.label, ln + 1,
                                            bus_col >= 0 ? "bus id" : "uuid", clip_for_message(bus_col >= 0 ? cell(bus_col) : cell(uuid_col))));
      }
      Value pid = parse_value(cell(pid_col));
      if (!pid.is_number() || pid.number < 1 || pid.number > 4294967294.0 || pid.number != std::floor(pid.number))
        return core::make_error(fmt::format("{}:{}: pid '{}' is not a process id", f.label, ln + 1, clip_for_message(cell(pid_col))));
      if (++process_count > kMaxScenarioProcesses)
        return core::make_error(fmt::format("{}:{}: more than {} processes: a scenario holds at most {} (each runs as a "
                                            "stand-in process); capture fewer", f.label, ln + 1, kMaxScenarioProcesses,
                                            kMaxScenarioProcesses));
      Value mem = parse_value(cell(mem_col));
      if (mem.is_number() && (!std::isfinite(mem.number) || mem.number < 0 || mem.number > 1e9))
        return core::make_error(fmt::format("{}:{}: used memory '{}' is out of range (0 to 1e9 MiB)", f.label, ln + 1,
                                            clip_for_message(cell(mem_col))));
      g->processes.push_back({static_cast<unsigned>(pid.integer), cell(name_col), mem.is_number() ? mem.text : "0"});
    }
    return {};
  }

  void query_text(const CaptureFile& f) {
    ImportedGpu* g = nullptr;
    std::vector<std::string> section(8);
    for (const auto& raw : lines_of(f.content)) {
      if (raw.rfind("GPU ", 0) == 0) {
        std::string bus = raw.substr(4);
        g = find_gpu(bus, "");
        if (!g && gpus.size() == 1) g = &gpus[0];
        continue;
      }
      if (raw.rfind("CUDA Version", 0) == 0) {
        // "CUDA Version : 12.4", maybe with " [Deprecated; ...]" after it; nothing after the colon
        // (or no colon) leaves it unknown.
        const auto colon = raw.find(':');
        const auto start = colon == std::string::npos ? std::string::npos : raw.find_first_not_of(' ', colon + 1);
        if (start != std::string::npos) cuda_version = raw.substr(start, raw.find(' ', start) - start);
      }
      if (!g) continue;
      std::size_t indent = raw.find_first_not_of(' ');
      if (indent == std::string::npos) continue;
      auto colon = raw.find(" : ");
      std::string name = raw.substr(indent, colon == std::string::npos ? std::string::npos : colon - indent);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      std::size_t level = indent / 4;
      if (colon == std::string::npos) {
        if (level < section.size()) section[level] = name;
        if (name == "MIG Device") g->mig.emplace_back();
        continue;
      }
      std::string value = raw.substr(colon + 3);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      // Deeper than the sections kept (8 levels): no parent the importer knows.
      std::string parent = level >= 1 && level - 1 < section.size() ? section[level - 1] : "";
      std::string top = section[1];
      Value v = parse_value(value == "N/A" ? "[N/A]" : value);
      std::string text = display_text(v);
      auto extra = [&](Key k) { g->extras.emplace_back(k, text); };
      if (level == 1 && name == "Product Brand") extra(Key::Brand);
      else if (level == 1 && name == "Product Architecture") extra(Key::Architecture);
      else if (level == 1 && name == "Minor Number") extra(Key::MinorNumber);
      else if (level == 1 && name == "Board Part Number") extra(Key::BoardPartNumber);
      else if (parent == "Temperature" && name == "GPU Shutdown Temp") extra(Key::TemperatureGpuShutdown);
      else if (parent == "Temperature" && name == "GPU Slowdown Temp") extra(Key::TemperatureGpuSlowdown);
      else if (parent == "Temperature" && name == "GPU Max Operating Temp") extra(Key::TemperatureGpuMaxOperating);
      else if (parent == "Temperature" && name == "Memory Max Operating Temp") extra(Key::TemperatureMemoryMaxOperating);
      else if (parent == "Max Clocks" && name == "Video") extra(Key::ClocksMaxVideo);
      else if (level == 2 && parent == "BAR1 Memory Usage" && name == "Total") extra(Key::Bar1Total);
      else if (level == 2 && parent == "BAR1 Memory Usage" && name == "Used") extra(Key::Bar1Used);
      else if (top == "MIG Device" && !g->mig.empty()) {
        auto& m = g->mig.back();
        if (parent == "Shared FB Memory Usage" && name == "Total") m.memory = text;
        if (parent == "Shared FB Memory Usage" && name == "Used") m.used = text;
        if (level == 2 && name == "GPU Instance ID") m.gpu_instance = text;
        if (level == 2 && name == "Compute Instance ID") m.compute_instance = text;
        if (name == "Multiprocessor count") {
          int sm = std::atoi(text.c_str());
          m.profile = std::to_string(sm <= 16 ? 1 : sm <= 32 ? 2 : sm <= 60 ? 3 : sm <= 64 ? 4 : 7) + "g";
        }
      }
    }
  }

  std::string emit() const {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "description" << YAML::Value
        << fmt::format("Imported from nvidia-smi captures: {}", fmt::join(sources, ", "));
    if (keep_time && log_start) {
      // To the millisecond, in UTC: the log's first row is scenario time 0.
      const auto ms = static_cast<long long>(std::llround(*log_start * 1000));
      const std::time_t secs = static_cast<std::time_t>(ms / 1000);
      std::tm utc{};
      gmtime_r(&secs, &utc);
      out << YAML::Key << "start_time" << YAML::Value
          << fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                         utc.tm_hour, utc.tm_min, utc.tm_sec, ms % 1000);
    }
    out << YAML::Key << "driver" << YAML::Value << YAML::BeginMap;
    if (!driver_version.empty()) out << YAML::Key << "version" << YAML::Value << driver_version;
    if (!cuda_version.empty()) out << YAML::Key << "cuda_version" << YAML::Value << cuda_version;
    out << YAML::EndMap;
    out << YAML::Key << "gpus" << YAML::Value << YAML::BeginSeq;
    for (const auto& g : gpus) {
      out << YAML::BeginMap;
      std::string name;
      for (const auto& [k, v] : g.values)
        if (k == Key::Name) name = v;
      if (const ModelSpec* m = find_model(name)) out << YAML::Key << "model" << YAML::Value << std::string(m->id);
      out << YAML::Key << "values" << YAML::Value << YAML::BeginMap;
      for (const auto& [k, v] : g.extras) out << YAML::Key << std::string(key_info(k).name) << YAML::Value << v;
      for (const auto& [k, v] : g.values) out << YAML::Key << std::string(key_info(k).name) << YAML::Value << v;
      out << YAML::EndMap;
      if (!g.later_rows.empty()) {
        out << YAML::Key << "phases" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
        out << YAML::Key << "kind" << YAML::Value << "replay";
        out << YAML::Key << "rows" << YAML::Value << YAML::BeginSeq;
        // --keep-time: every GPU's rows are offsets from the log's start, not from its own first row.
        const double offset = keep_time && log_start && g.has_first_ts
                                  ? std::round((g.first_ts - *log_start) * 1e6) / 1e6 : 0.0;
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "t" << YAML::Value << fmt::format("{}", offset) << YAML::EndMap;
        for (const auto& [t, vals] : g.later_rows) {
          // fmt's shortest form: "0.1", where yaml-cpp would write 0.10000000000000001.
          out << YAML::Flow << YAML::BeginMap << YAML::Key << "t" << YAML::Value
              << fmt::format("{}", std::round((t + offset) * 1e6) / 1e6);
          for (const auto& [k, v] : vals) out << YAML::Key << std::string(key_info(k).name) << YAML::Value << v;
          out << YAML::EndMap;
        }
        out << YAML::EndSeq << YAML::EndMap << YAML::EndSeq;
        out << YAML::Key << "loop" << YAML::Value << false;
      }
      if (!g.processes.empty()) {
        out << YAML::Key << "processes" << YAML::Value << YAML::BeginSeq;
        for (const auto& p : g.processes) {
          out << YAML::Flow << YAML::BeginMap << YAML::Key << "pid" << YAML::Value << p.pid << YAML::Key << "command"
              << YAML::Value << p.name << YAML::Key << "memory" << YAML::Value << p.memory << YAML::EndMap;
        }
        out << YAML::EndSeq;
      }
      bool mig_on = false;
      for (const auto& [k, v] : g.values)
        if (k == Key::MigModeCurrent && v == "Enabled") mig_on = true;
      if (mig_on && !g.mig.empty()) {
        out << YAML::Key << "mig" << YAML::Value << YAML::BeginSeq;
        for (const auto& m : g.mig) {
          out << YAML::Flow << YAML::BeginMap << YAML::Key << "profile" << YAML::Value
              << (m.profile.empty() ? "1g" : m.profile) + "." + std::to_string(mig_gigabytes(m.memory)) + "gb";
          if (!m.memory.empty()) out << YAML::Key << "memory" << YAML::Value << m.memory;
          if (!m.used.empty()) out << YAML::Key << "memory_used" << YAML::Value << m.used;
          if (!m.gpu_instance.empty()) out << YAML::Key << "gpu_instance" << YAML::Value << m.gpu_instance;
          if (!m.compute_instance.empty()) out << YAML::Key << "compute_instance" << YAML::Value << m.compute_instance;
          out << YAML::EndMap;
        }
        out << YAML::EndSeq;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
  }
};

}  // namespace

CaptureKind detect_capture_kind(std::string_view content) {
  std::string line = first_line(content);
  if (content.find("==============NVSMI LOG==============") != std::string_view::npos ||
      content.find("Attached GPUs") != std::string_view::npos)
    return CaptureKind::QueryText;
  auto cells = split_csv_line(line);
  bool has_pid = false, has_query = false;
  for (const auto& c : cells) {
    auto n = header_name(c);
    if (n == "pid") has_pid = true;
    if (n != "timestamp" && find_key(n)) has_query = true;
  }
  if (has_pid) return CaptureKind::ComputeApps;
  if (has_query) return CaptureKind::QueryGpu;
  return CaptureKind::Unknown;
}

core::Result<std::string> import_capture_files(const std::vector<CaptureFile>& files,
                                               const CaptureImportOptions& options) {
  Importer imp;
  imp.keep_time = options.keep_time;
  // --query-gpu first: the other kinds attach to its GPUs.
  for (int pass = 0; pass < 3; ++pass) {
    for (const auto& f : files) {
      CaptureKind kind = detect_capture_kind(f.content);
      if (kind == CaptureKind::Unknown)
        return core::make_error(fmt::format("{}: not an nvidia-smi capture this importer knows (a --query-gpu CSV "
                                            "with header, a --query-compute-apps CSV or nvidia-smi -q text)", f.label));
      if (pass == 0 && kind == CaptureKind::QueryGpu) {
        auto r = imp.query_gpu(f);
        if (!r) return r.error();
        imp.sources.push_back(std::filesystem::path(f.label).filename().string());
      } else if (pass == 1 && kind == CaptureKind::ComputeApps) {
        if (imp.gpus.empty()) break;
        auto r = imp.compute_apps(f);
        if (!r) return r.error();
        imp.sources.push_back(std::filesystem::path(f.label).filename().string());
      } else if (pass == 2 && kind == CaptureKind::QueryText) {
        if (imp.gpus.empty()) break;
        imp.query_text(f);
        imp.sources.push_back(std::filesystem::path(f.label).filename().string());
      }
    }
    if (pass == 0 && imp.gpus.empty())
      return core::make_error("sim import: a --query-gpu CSV with its header is required");
  }
  return imp.emit();
}

}  // namespace gpuwatch::sim
