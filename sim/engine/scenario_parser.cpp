// YAML -> Scenario. Every error names the source, the line and the key.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <fmt/format.h>

#include "sim/engine/catalog.hpp"
#include "sim/engine/host_values.hpp"
#include "sim/engine/nvml_errors.hpp"
#include "sim/engine/recovery_action.hpp"
#include "sim/engine/replay_source.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/symbol_names.hpp"
#include "sim/engine/value_limits.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim {
namespace {

struct ParseError {
  std::string message;
};

// Whole numbers a scenario gives: never cast from a double out of the target's range (issue 16).
constexpr long long kMaxSeed = 9'007'199'254'740'992;  // 2^53: every whole number up to it is exact in YAML's double
constexpr long long kMaxUnsigned = 4'294'967'295;      // Xid codes, GPU and MIG instance indices

class Parser {
 public:
  Parser(std::string_view label, std::string_view base_dir) : label_(label), base_dir_(base_dir) {}

  [[noreturn]] void fail(const YAML::Node& node, std::string_view key, const std::string& what) const {
    int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    // A huge value (a 200 KB command line) is not echoed whole.
    const std::string shown = what.size() > 400 ? clip_for_message(what) : what;
    throw ParseError{fmt::format("{}:{}: key '{}': {}", label_, line, clip_for_message(key), shown)};
  }

  void check_keys(const YAML::Node& map, std::string_view where, std::initializer_list<std::string_view> allowed) const {
    if (!map.IsMap()) fail(map, where, "expected a mapping");
    for (const auto& kv : map) {
      auto k = kv.first.as<std::string>();
      bool ok = false;
      for (auto a : allowed) ok = ok || a == k;
      if (!ok) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(kv.first, k, fmt::format("unknown key in {} (known: {})", where, list));
      }
    }
  }

  std::string str(const YAML::Node& n, std::string_view key) const {
    if (!n.IsScalar()) fail(n, key, "expected a scalar value");
    return n.as<std::string>();
  }

  double number(const YAML::Node& n, std::string_view key) const {
    Value v = parse_value(str(n, key));
    if (!v.is_number()) fail(n, key, fmt::format("expected a number, got '{}'", n.as<std::string>()));
    if (!std::isfinite(v.number)) fail(n, key, fmt::format("expected a finite number, got '{}'", n.as<std::string>()));
    return v.number;
  }

  // A number within [LOW, HIGH] (issue 16: never clamped silently).
  double bounded(const YAML::Node& n, std::string_view key, double low, double high) const {
    double v = number(n, key);
    if (v < low || v > high) fail(n, key, fmt::format("expected {} to {}, got '{}'", low, high, n.as<std::string>()));
    return v;
  }

  // A whole number within [LOW, HIGH]: a count of 1.5 is an error, not 1.
  long long whole(const YAML::Node& n, std::string_view key, long long low, long long high) const {
    double v = number(n, key);
    if (v != std::floor(v) || v < static_cast<double>(low) || v > static_cast<double>(high)) {
      fail(n, key, fmt::format("expected a whole number from {} to {}, got '{}'", low, high, n.as<std::string>()));
    }
    return static_cast<long long>(v);
  }

  // Seconds: a number, or a number with s/m/h.
  double duration(const YAML::Node& n, std::string_view key) const {
    std::string s = str(n, key);
    double mult = 1;
    if (!s.empty() && (s.back() == 's' || s.back() == 'm' || s.back() == 'h')) {
      mult = s.back() == 'm' ? 60 : s.back() == 'h' ? 3600 : 1;
      s.pop_back();
    }
    Value v = parse_value(s);
    if (!v.is_number() || v.number < 0) fail(n, key, fmt::format("expected a duration (e.g. 90, 30s, 10m, 2h), got '{}'", n.as<std::string>()));
    // "1e308h": finite as a number, infinite in seconds.
    if (!std::isfinite(v.number * mult)) fail(n, key, fmt::format("expected a finite duration, got '{}'", n.as<std::string>()));
    return v.number * mult;
  }

  bool boolean(const YAML::Node& n, std::string_view key) const {
    std::string s = str(n, key);
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    fail(n, key, fmt::format("expected true or false, got '{}'", s));
  }

  int error_code(const YAML::Node& n, std::string_view key) const {
    std::string s = str(n, key);
    Value v = parse_value(s);
    if (v.is_number()) return static_cast<int>(whole(n, key, 0, 999));  // NVML's codes: 0 .. 999 (UNKNOWN)
    std::string text = s;
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
    if (auto c = nvml_error_from_text(text)) return *c;
    // NVML_ERROR_GPU_IS_LOST style names
    static const std::pair<const char*, int> kNames[] = {
        {"UNINITIALIZED", 1}, {"INVALID_ARGUMENT", 2}, {"NOT_SUPPORTED", 3}, {"NO_PERMISSION", 4},
        {"NOT_FOUND", 6}, {"INSUFFICIENT_SIZE", 7}, {"DRIVER_NOT_LOADED", 9}, {"TIMEOUT", 10},
        {"FUNCTION_NOT_FOUND", 13}, {"GPU_IS_LOST", 15}, {"RESET_REQUIRED", 16}, {"NO_DATA", 21},
        {"LIB_RM_VERSION_MISMATCH", 18}, {"IN_USE", 19}, {"MEMORY", 20}, {"UNKNOWN", 999}};
    for (auto [name, code] : kNames)
      if (s == name || s == std::string("NVML_ERROR_") + name) return code;
    fail(n, key, fmt::format("'{}' is not an NVML error (use a code, NVML_ERROR_NAME or an nvmlErrorString text)", s));
  }

  Scenario parse(const YAML::Node& root) {
    if (!root.IsMap()) fail(root, "(top)", "a scenario is a YAML mapping");
    check_keys(root, "the scenario", {"name", "description", "time_scale", "start_time", "seed", "driver", "gpus", "faults", "host"});
    Scenario sc;
    sc.source = label_;
    if (root["name"]) sc.name = str(root["name"], "name");
    if (root["description"]) sc.description = str(root["description"], "description");
    if (root["time_scale"]) {
      sc.time_scale = number(root["time_scale"], "time_scale");
      if (sc.time_scale <= 0) fail(root["time_scale"], "time_scale", "must be positive");
    }
    if (root["start_time"]) {
      double seconds = 0;
      const std::string text = str(root["start_time"], "start_time");
      // 1970 to 2100: a log's own times, never a sentinel or a far future.
      if (!parse_timestamp(text, seconds) || !(seconds >= 0 && seconds < 4102444800.0))
        fail(root["start_time"], "start_time", "expected an ISO-8601 UTC time (2025-06-13T00:27:52.195Z) from 1970 to 2100");
      sc.start_ms = static_cast<std::int64_t>(std::llround(seconds * 1000));
    }
    if (root["seed"]) sc.seed = static_cast<std::uint64_t>(whole(root["seed"], "seed", 0, kMaxSeed));
    if (auto d = root["driver"]) parse_driver(d, sc.driver);
    if (auto g = root["gpus"]) {
      if (!g.IsSequence()) fail(g, "gpus", "expected a list of GPUs");
      for (const auto& gpu : g) parse_gpu(gpu, sc);
    }
    if (auto f = root["faults"]) {
      if (!f.IsSequence()) fail(f, "faults", "expected a list of faults");
      for (const auto& fault : f) sc.faults.push_back(parse_fault(fault, sc));
    }
    if (auto h = root["host"]) parse_host(h, sc);
    std::size_t processes = 0;
    for (const auto& gpu : sc.gpus) processes += gpu.processes.size();
    if (processes > kMaxScenarioProcesses) {
      fail(root["gpus"], "processes",
           fmt::format("{} processes: a scenario holds at most {} (each runs as a stand-in process)", processes,
                       kMaxScenarioProcesses));
    }
    finish(sc);
    return sc;
  }

 private:
  void parse_driver(const YAML::Node& d, DriverSpec& out) {
    check_keys(d, "driver", {"version", "nvml_version", "cuda_version", "symbols", "init_error"});
    if (d["version"]) out.version = str(d["version"], "version");
    if (d["nvml_version"]) out.nvml_version = str(d["nvml_version"], "nvml_version");
    if (auto c = d["cuda_version"]) {
      Value v = parse_value(str(c, "cuda_version"));
      if (!v.is_number() || v.number < 0 || v.number > 999999) fail(c, "cuda_version", "expected e.g. 12.2 or 12020");
      out.cuda_version = v.number >= 1000 ? static_cast<int>(v.number)
                                          : static_cast<int>(std::lround(std::floor(v.number) * 1000 +
                                                                         std::round((v.number - std::floor(v.number)) * 10) * 10));
    }
    if (auto s = d["symbols"]) {
      std::string v = str(s, "symbols");
      if (v != "legacy" && v != "current") fail(s, "symbols", "expected 'current' or 'legacy'");
      out.legacy_symbols = v == "legacy";
    }
    if (auto e = d["init_error"]) out.init_error = error_code(e, "init_error");
  }

  Process parse_process(const YAML::Node& p) {
    check_keys(p, "a process", {"command", "user", "memory", "type", "pid", "pid_env", "pid_file"});
    Process out;
    if (!p["command"]) fail(p, "command", "a process needs a command line");
    out.command = str(p["command"], "command");
    if (p["user"]) out.user = str(p["user"], "user");
    if (p["memory"]) out.memory_mib = bounded(p["memory"], "memory", 0, 1e9);  // MiB
    if (auto t = p["type"]) {
      std::string ty = str(t, "type");
      if (ty == "compute") { out.compute = true; out.graphics = false; }
      else if (ty == "graphics") { out.compute = false; out.graphics = true; }
      else if (ty == "both" || ty == "C+G") { out.compute = out.graphics = true; }
      else fail(t, "type", "expected compute, graphics or both");
    }
    if (auto pid = p["pid"]) {
      double v = number(pid, "pid");
      if (v <= 0 || v > 4294967294.0) fail(pid, "pid", "expected a positive PID");
      out.pid = static_cast<unsigned>(v);
    }
    if (p["pid_env"]) out.pid_env = str(p["pid_env"], "pid_env");
    if (auto f = p["pid_file"]) {
      out.pid_file = str(f, "pid_file");
      if (out.pid_file.empty()) fail(f, "pid_file", "expected the path of a file holding a PID");
      if (out.pid_file[0] != '/' && !base_dir_.empty()) out.pid_file = (std::filesystem::path(base_dir_) / out.pid_file).string();
    }
    if (int(!!out.pid) + int(!out.pid_env.empty()) + int(!out.pid_file.empty()) > 1)
      fail(p, "pid", "give at most one of pid, pid_env and pid_file");
    return out;
  }

  Phase parse_phase(const YAML::Node& p, unsigned gpu_index) {
    check_keys(p, "a phase", {"kind", "duration", "intensity", "processes", "sbe_per_min", "dbe_per_min",
                              "remap_per_min", "xid", "file", "gpu", "rows", "loop", "recovery_action", "busy",
                              "idle", "sm_share", "leak_mib_per_s", "peak_temp", "cache_fraction", "cache_growth",
                              "clock_ratio", "power_ratio", "ramp", "memory_util", "nvlink"});
    Phase ph;
    if (!p["kind"]) fail(p, "kind", "a phase needs a kind");
    auto kind = phase_kind_from_name(str(p["kind"], "kind"));
    if (!kind)
      fail(p["kind"], "kind",
           fmt::format("unknown phase kind '{}' (known: idle, training, dataloader_starvation, small_kernels, "
                       "memory_bound, memory_leak, fragmentation, hung, thermal_runaway, power_capping, replay, "
                       "gpu_lost, ecc_errors, nccl_hang)", p["kind"].as<std::string>()));
    ph.kind = *kind;
    parse_shape(p, ph);
    if (p["duration"]) ph.duration_s = duration(p["duration"], "duration");
    if (p["intensity"]) ph.intensity = number(p["intensity"], "intensity");
    if (p["processes"]) ph.processes_visible = boolean(p["processes"], "processes");
    if (p["sbe_per_min"]) ph.sbe_per_min = number(p["sbe_per_min"], "sbe_per_min");
    if (p["dbe_per_min"]) ph.dbe_per_min = number(p["dbe_per_min"], "dbe_per_min");
    if (p["remap_per_min"]) ph.remap_per_min = number(p["remap_per_min"], "remap_per_min");
    if (p["xid"]) ph.xid = static_cast<unsigned>(whole(p["xid"], "xid", 0, kMaxUnsigned));
    if (p["recovery_action"]) ph.recovery_action = recovery_action(p["recovery_action"]);
    if (p["loop"]) ph.replay_loop = boolean(p["loop"], "loop");
    if (auto n = p["nvlink"]) {  // issue 25: when the GPU's NVLink traffic flows in this phase
      const std::string when = str(n, "nvlink");
      if (when == "load") ph.nvlink = NvlinkTraffic::Load;
      else if (when == "gaps") ph.nvlink = NvlinkTraffic::Gaps;
      else if (when == "steady") ph.nvlink = NvlinkTraffic::Steady;
      else fail(n, "nvlink", fmt::format("expected load, gaps or steady, got '{}'", when));
    }
    if (ph.kind == PhaseKind::EccErrors && ph.sbe_per_min == 0 && ph.dbe_per_min == 0) ph.sbe_per_min = 6;
    if (ph.kind == PhaseKind::Replay) {
      if (auto f = p["file"]) {
        std::string path = str(f, "file");
        if (const char* rd = std::getenv("GPUWATCH_REALDATA_DIR"); rd && path.rfind("realdata/", 0) == 0)
          path = std::string(rd) + path.substr(8);
        else if (!path.empty() && path[0] != '/' && !base_dir_.empty())
          path = (std::filesystem::path(base_dir_) / path).string();
        auto series = load_recorded_series(path);
        if (!series) fail(f, "file", series.error().message);
        unsigned which = p["gpu"] ? static_cast<unsigned>(whole(p["gpu"], "gpu", 0, kMaxUnsigned)) : gpu_index;
        if (which >= series->per_gpu.size())
          fail(p, "gpu", fmt::format("the recording has {} GPUs, no GPU {}", series->per_gpu.size(), which));
        ph.rows = series->per_gpu[which];
        ph.source = path;
      } else if (auto rows = p["rows"]) {
        if (!rows.IsSequence()) fail(rows, "rows", "expected a list of {t: seconds, KEY: value ...}");
        for (const auto& r : rows) {
          if (!r.IsMap()) fail(r, "rows", "expected a mapping");
          ReplayRow row;
          for (const auto& kv : r) {
            auto k = kv.first.as<std::string>();
            if (k == "t") { row.t_s = duration(kv.second, "t"); continue; }
            auto key = find_key(k);
            if (!key) fail(kv.first, k, "unknown query key (see docs/simulator.md)");
            Value v = value_of(kv.second, k);
            if (v.is_number()) check_value_range(kv.second, k, *key, v.number);
            row.values.emplace_back(*key, std::move(v));
          }
          ph.rows.push_back(std::move(row));
        }
      } else {
        fail(p, "file", "a replay phase needs 'file' or 'rows'");
      }
      if (ph.rows.empty()) fail(p, "rows", "nothing to replay");
      if (!p["duration"]) ph.duration_s = ph.rows.back().t_s + 1;
    }
    return ph;
  }

  // The shape parameters of the pathological phases: each belongs to one kind, with a range.
  void parse_shape(const YAML::Node& p, Phase& ph) const {
    struct Param {
      const char* key;
      PhaseKind kind;
      double Phase::*field;
      bool is_duration;
      double min, max;  // inclusive; min is exclusive when min_exclusive
      bool min_exclusive;
      const char* range;
    };
    static const Param kParams[] = {
        {"busy", PhaseKind::DataloaderStarvation, &Phase::busy_s, true, 0, 3600, true, "a duration above 0 and up to 1h"},
        {"idle", PhaseKind::DataloaderStarvation, &Phase::idle_s, true, 0, 3600, true, "a duration above 0 and up to 1h"},
        {"ramp", PhaseKind::DataloaderStarvation, &Phase::ramp_s, true, 0, 3600, false, "a duration 0..1h"},
        {"sm_share", PhaseKind::SmallKernels, &Phase::sm_share, false, 0, 1, true, "a share above 0 and up to 1"},
        {"leak_mib_per_s", PhaseKind::MemoryLeak, &Phase::leak_mib_per_s, false, 0, 1e6, true, "MiB/s above 0"},
        {"peak_temp", PhaseKind::ThermalRunaway, &Phase::peak_temp_c, false, 20, 130, false, "20..130 (°C)"},
        {"cache_fraction", PhaseKind::Fragmentation, &Phase::cache_fraction, false, 0, 1, false, "a share 0..1"},
        {"cache_growth", PhaseKind::Fragmentation, &Phase::cache_growth_s, true, 0, 1e7, true, "a duration above 0"},
        {"clock_ratio", PhaseKind::PowerCapping, &Phase::clock_ratio, false, 0, 1, true, "a share above 0 and up to 1"},
        {"power_ratio", PhaseKind::NcclHang, &Phase::power_ratio, false, 1, 10, false, "1..10 (times the idle power)"},
        {"memory_util", PhaseKind::NcclHang, &Phase::memory_util, false, 0, 100, false, "0..100 (%)"},
    };
    for (const auto& param : kParams) {
      const YAML::Node n = p[param.key];
      if (!n) continue;
      if (ph.kind != param.kind)
        fail(n, param.key, fmt::format("applies to {} phases only, not {}", phase_kind_name(param.kind), phase_kind_name(ph.kind)));
      const double v = param.is_duration ? duration(n, param.key) : number(n, param.key);
      const bool low = param.min_exclusive ? v <= param.min : v < param.min;
      if (low || v > param.max || !std::isfinite(v)) fail(n, param.key, fmt::format("expected {}, got '{}'", param.range, n.as<std::string>()));
      ph.*param.field = v;
    }
  }

  // A value the driver can hand out: finite, and within what its NVML unit holds (watts
  // are served as uint32 milliwatts). Beyond that it is an error, never wrapped or clamped.
  void check_value_range(const YAML::Node& n, const std::string& name, Key key, double v) const {
    if (auto problem = value_range_problem(key, v); !problem.empty()) {
      fail(n, name, fmt::format("'{}' is {}", n.as<std::string>(), problem));
    }
  }

  Value value_of(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a scalar value");
    std::string problem;
    Value v = parse_value(n.as<std::string>(), &problem);
    if (!problem.empty()) fail(n, key, problem);
    return v;
  }

  void parse_gpu(const YAML::Node& g, Scenario& sc) {
    check_keys(g, "a GPU",
               {"model", "vendor", "count", "values", "phases", "loop", "processes", "events", "mig", "seed", "noise"});
    int count = g["count"] ? static_cast<int>(whole(g["count"], "count", 0, 64)) : 1;
    const ModelSpec* model = nullptr;
    std::string model_name;
    if (auto m = g["model"]) {
      model_name = str(m, "model");
      model = find_model(model_name);
      if (!model) fail(m, "model", fmt::format("unknown model '{}'; the catalog has: {}", model_name, catalog_names()));
      model_name = std::string(model->id);
    }
    const core::Vendor vendor = gpu_vendor(g, model);
    for (int c = 0; c < count; ++c) {
      auto index = static_cast<unsigned>(sc.gpus.size());
      GpuSpec gpu;
      gpu.model = model_name.empty() ? "generic" : model_name;
      gpu.vendor = vendor;
      gpu.seed = g["seed"] ? static_cast<std::uint64_t>(whole(g["seed"], "seed", 0, kMaxSeed)) : hash_index(sc.seed, index);
      gpu.values = model ? model_defaults(*model, index, sc.seed) : generic_defaults(index, sc.seed, vendor);
      if (model) gpu.sample_period_s = model_sample_period_s(*model);
      if (g["noise"]) gpu.noise = number(g["noise"], "noise");
      if (auto vals = g["values"]) {
        if (!vals.IsMap()) fail(vals, "values", "expected a mapping of query keys to values");
        for (const auto& kv : vals) {
          auto k = kv.first.as<std::string>();
          auto key = find_key(k);
          if (!key) fail(kv.first, k, "unknown query key (the vocabulary is nvidia-smi --query-gpu names; see docs/simulator.md)");
          Value v = value_of(kv.second, k);
          const Value& def = gpu.values[key_index(*key)];
          if (def.is_number() && v.kind == Value::Kind::Text && *key != Key::ComputeCap && *key != Key::Serial)
            fail(kv.second, k, fmt::format("expected a number in display units, got '{}'", v.text));
          if (v.is_number()) check_value_range(kv.second, k, *key, v.number);
          gpu.values[key_index(*key)] = std::move(v);
          gpu.overridden[key_index(*key)] = true;
        }
      }
      if (auto ph = g["phases"]) {
        if (!ph.IsSequence()) fail(ph, "phases", "expected a list of phases");
        for (const auto& p : ph) gpu.phases.push_back(parse_phase(p, index));
      }
      if (g["loop"]) gpu.loop = boolean(g["loop"], "loop");
      if (auto ps = g["processes"]) {
        if (!ps.IsSequence()) fail(ps, "processes", "expected a list of processes");
        for (const auto& p : ps) gpu.processes.push_back(parse_process(p));
      }
      if (auto ev = g["events"]) {
        if (!ev.IsSequence()) fail(ev, "events", "expected a list of events");
        for (const auto& e : ev) gpu.events.push_back(parse_event(e));
      }
      if (auto mig = g["mig"]) {
        if (!mig.IsSequence()) fail(mig, "mig", "expected a list of MIG instances");
        unsigned gi = 1;
        for (const auto& m : mig) {
          check_keys(m, "a MIG instance",
                     {"profile", "memory", "memory_used", "processes", "gpu_instance", "compute_instance"});
          MigInstance inst;
          if (!m["profile"]) fail(m, "profile", "a MIG instance needs a profile such as 3g.40gb");
          inst.profile = str(m["profile"], "profile");
          inst.memory_mib = m["memory"] ? number(m["memory"], "memory") : 0;
          inst.memory_used_mib = m["memory_used"] ? number(m["memory_used"], "memory_used") : 0;
          inst.gpu_instance_id =
              m["gpu_instance"] ? static_cast<unsigned>(whole(m["gpu_instance"], "gpu_instance", 0, kMaxUnsigned)) : gi;
          inst.compute_instance_id =
              m["compute_instance"] ? static_cast<unsigned>(whole(m["compute_instance"], "compute_instance", 0, kMaxUnsigned)) : 0;
          gi = inst.gpu_instance_id + 1;
          if (auto ps = m["processes"])
            for (const auto& p : ps) inst.processes.push_back(parse_process(p));
          gpu.mig.push_back(std::move(inst));
        }
        if (!model || !model->mig_capable)
          fail(mig, "mig", fmt::format("model '{}' does not support MIG (A100, H100 and H200 do)", gpu.model));
      }
      sc.gpus.push_back(std::move(gpu));
    }
  }

  // `vendor: nvidia|amd|intel`, else the catalog model's (NVIDIA without a model). It must agree
  // with the model's: an H100 is not an AMD GPU.
  core::Vendor gpu_vendor(const YAML::Node& g, const ModelSpec* model) const {
    const core::Vendor from_model = model ? model->vendor : core::Vendor::Nvidia;
    const YAML::Node n = g["vendor"];
    if (!n) return from_model;
    const std::string word = str(n, "vendor");
    std::optional<core::Vendor> vendor;
    for (core::Vendor v : {core::Vendor::Nvidia, core::Vendor::Amd, core::Vendor::Intel})
      if (word == core::to_string(v)) vendor = v;
    if (!vendor) fail(n, "vendor", fmt::format("expected nvidia, amd or intel, got '{}'", word));
    if (model && *vendor != model->vendor)
      fail(n, "vendor", fmt::format("model '{}' is a {} GPU, not {}", model->id, core::to_string(model->vendor), word));
    return *vendor;
  }

  static std::uint64_t hash_index(std::uint64_t seed, unsigned index) { return seed * 1000003ull + index * 7919ull + 17; }

  int recovery_action(const YAML::Node& n) {
    auto code = recovery_action_code(str(n, "recovery_action"));
    if (!code) fail(n, "recovery_action", fmt::format("expected one of {}", kRecoveryActionWords));
    return static_cast<int>(*code);
  }

  ScheduledEvent parse_event(const YAML::Node& e) {
    check_keys(e, "an event", {"at", "xid", "type", "recovery_action"});
    ScheduledEvent ev;
    if (!e["at"]) fail(e, "at", "an event needs a time");
    ev.at_s = duration(e["at"], "at");
    std::string type = e["type"] ? str(e["type"], "type") : "xid";
    if (type == "xid") { ev.type = 0x8; ev.data = e["xid"] ? static_cast<std::uint64_t>(whole(e["xid"], "xid", 0, kMaxUnsigned)) : 999; }
    else if (type == "single_bit_ecc") ev.type = 0x1;
    else if (type == "double_bit_ecc") ev.type = 0x2;
    else if (type == "pstate") ev.type = 0x4;
    else if (type == "recovery_action") ev.type = 0;  // no NVML event: only changes gpu_recovery_action
    else fail(e["type"], "type", "expected xid, single_bit_ecc, double_bit_ecc, pstate or recovery_action");
    if (e["recovery_action"]) ev.recovery_action = recovery_action(e["recovery_action"]);
    else if (ev.type == 0) fail(e, "recovery_action", "a recovery_action event needs recovery_action");
    return ev;
  }

  // `host:` (gpuwatch doctor's simulated /proc and /dev; docs/simulator.md).
  void parse_host(const YAML::Node& h, Scenario& sc) {
    check_keys(h, "host", {"module_loaded", "module_version", "device_nodes", "container", "kernel_log", "signals"});
    HostSpec& out = sc.host;
    if (auto s = h["signals"]) out.signals = parse_host_signals(s);
    if (h["module_loaded"]) out.module_loaded = boolean(h["module_loaded"], "module_loaded");
    if (h["module_version"]) out.module_version = str(h["module_version"], "module_version");
    if (auto d = h["device_nodes"]) {
      const std::string v = str(d, "device_nodes");
      if (v == "present") out.device_nodes = DeviceNodes::Present;
      else if (v == "missing") out.device_nodes = DeviceNodes::Missing;
      else if (v == "unreadable") out.device_nodes = DeviceNodes::Unreadable;
      else fail(d, "device_nodes", "expected present, missing or unreadable");
    }
    if (auto c = h["container"]) {
      out.container = str(c, "container");
      if (out.container == "none") out.container.clear();
      if (!out.container.empty() && out.container != "docker" && out.container != "podman")
        fail(c, "container", "expected none, docker or podman");
    }
    if (auto k = h["kernel_log"]) {
      if (!k.IsSequence()) fail(k, "kernel_log", "expected a list of {at, gpu, xid}");
      for (const auto& line : k) {
        check_keys(line, "a kernel_log line", {"at", "gpu", "xid"});
        KernelLogXid x;
        if (line["at"]) x.at_s = duration(line["at"], "at");
        if (!line["xid"]) fail(line, "xid", "a kernel_log line needs xid");
        x.xid = static_cast<unsigned>(whole(line["xid"], "xid", 1, kMaxUnsigned));
        if (line["gpu"]) {
          const long long gpus = static_cast<long long>(sc.gpus.size());
          if (gpus == 0) fail(line["gpu"], "gpu", "the scenario has no GPU");
          x.gpu = static_cast<unsigned>(whole(line["gpu"], "gpu", 0, gpus - 1));
        }
        out.kernel_log.push_back(x);
      }
    }
  }

  // `host: signals:` (the simulated host's /proc and /sys, issue 25; docs/simulator.md).
  HostSignals parse_host_signals(const YAML::Node& s) {
    check_keys(s, "host signals", {"cores", "memory_gib", "swap_gib", "disks", "interfaces", "infiniband", "phases"});
    HostSignals out;
    if (s["cores"]) out.cores = static_cast<unsigned>(whole(s["cores"], "cores", 1, 4096));
    constexpr double kGib = 1024.0 * 1024 * 1024;
    if (s["memory_gib"]) {
      out.memory_bytes = bounded(s["memory_gib"], "memory_gib", 0, 1 << 24) * kGib;
      if (out.memory_bytes <= 0) fail(s["memory_gib"], "memory_gib", "expected more than 0");
    }
    if (s["swap_gib"]) out.swap_bytes = bounded(s["swap_gib"], "swap_gib", 0, 1 << 24) * kGib;
    if (s["disks"]) out.disks = host_names(s["disks"], "disks");
    if (s["interfaces"]) out.interfaces = host_names(s["interfaces"], "interfaces");
    for (const auto& name : out.interfaces)
      if (name == "lo") fail(s["interfaces"], "interfaces", "lo is always there (and left out of the rates): name the others");
    if (auto ib = s["infiniband"]) {
      if (!ib.IsSequence()) fail(ib, "infiniband", "expected a list of devices (mlx5_0, or {device: mlx5_0, ports: 2})");
      for (const auto& d : ib) {
        HostInfiniband dev;
        if (d.IsMap()) {
          check_keys(d, "an InfiniBand device", {"device", "ports"});
          if (!d["device"]) fail(d, "device", "an InfiniBand device needs a name");
          dev.device = host_name(d["device"], "device");
          if (d["ports"]) dev.ports = static_cast<unsigned>(whole(d["ports"], "ports", 1, 64));
        } else {
          dev.device = host_name(d, "infiniband");
        }
        out.infiniband.push_back(dev);
      }
    }
    const YAML::Node phases = s["phases"];
    if (!phases) fail(s, "phases", "host signals need phases (a list of {duration, values...})");
    if (!phases.IsSequence() || phases.size() == 0) fail(phases, "phases", "expected a list of host phases");
    for (const auto& p : phases) out.phases.push_back(parse_host_phase(p));
    return out;
  }

  // Names of disks and interfaces: each one path component (no '/', no spaces, no ':').
  std::string host_name(const YAML::Node& n, std::string_view key) const {
    const std::string name = str(n, key);
    if (name.empty() || name.size() > 64 || name == "." || name == ".." ||
        name.find_first_of("/: \t\n") != std::string::npos)
      fail(n, key, fmt::format("'{}' is not a device name (one word without '/' or ':')", clip_for_message(name)));
    return name;
  }

  std::vector<std::string> host_names(const YAML::Node& n, std::string_view key) const {
    if (!n.IsSequence()) fail(n, key, "expected a list of names");
    std::vector<std::string> out;
    for (const auto& item : n) {
      out.push_back(host_name(item, key));
      if (std::count(out.begin(), out.end(), out.back()) > 1) fail(item, key, fmt::format("'{}' is listed twice", out.back()));
    }
    return out;
  }

  HostPhase parse_host_phase(const YAML::Node& p) {
    if (!p.IsMap()) fail(p, "phases", "expected a mapping");
    HostPhase ph;
    ph.values = default_host_values();
    for (const auto& kv : p) {
      const auto k = kv.first.as<std::string>();
      if (k == "duration") {
        ph.duration_s = duration(kv.second, "duration");
        if (ph.duration_s <= 0) fail(kv.second, "duration", "a host phase lasts more than 0 s");
      } else if (k != "gaps") {
        set_host_value(kv.first, kv.second, k, ph.values);
      }
    }
    check_host_values(p, ph.values);
    ph.gap_values = ph.values;
    if (auto g = p["gaps"]) {
      if (!g.IsMap()) fail(g, "gaps", "expected a mapping of host values that hold while GPU 0 sits in a gap");
      ph.has_gaps = true;
      for (const auto& kv : g) set_host_value(kv.first, kv.second, kv.first.as<std::string>(), ph.gap_values);
      check_host_values(g, ph.gap_values);
    }
    return ph;
  }

  void set_host_value(const YAML::Node& key_node, const YAML::Node& n, const std::string& key, HostValues& out) const {
    const HostValueInfo* info = find_host_value(key);
    if (!info) {
      std::string list = "duration, gaps";
      for (const auto& i : host_value_table()) list += fmt::format(", {}", i.key);
      fail(key_node, key, fmt::format("unknown key in a host phase (known: {})", list));
    }
    double v = 0;
    if (info->unit == HostUnit::BytesPerSecond) {
      // 1.5G, 200M, 64k: decimal multiples, as bytes per second.
      std::string text = str(n, key);
      double mult = 1;
      if (!text.empty()) {
        const char last = text.back();
        mult = last == 'k' || last == 'K' ? 1e3 : last == 'M' ? 1e6 : last == 'G' ? 1e9 : last == 'T' ? 1e12 : 1;
        if (mult != 1) text.pop_back();
      }
      const Value parsed = parse_value(text);
      if (!parsed.is_number() || !std::isfinite(parsed.number * mult))
        fail(n, key, fmt::format("expected bytes per second (e.g. 250000000, 250M, 1.5G), got '{}'", n.as<std::string>()));
      v = parsed.number * mult;
      if (v < info->min || v > info->max)
        fail(n, key, fmt::format("expected {} to {} bytes per second, got '{}'", info->min, info->max, n.as<std::string>()));
    } else if (info->unit == HostUnit::Count) {
      v = static_cast<double>(whole(n, key, static_cast<long long>(info->min), static_cast<long long>(info->max)));
    } else {
      v = bounded(n, key, info->min, info->max);
    }
    out[host_value_index(info->value)] = v;
  }

  // What the kernel's files cannot hold: CPU shares past 100 %, a PSI full above its some.
  void check_host_values(const YAML::Node& n, const HostValues& v) const {
    const double cpu = host_value(v, HostValue::CpuBusy) + host_value(v, HostValue::CpuIowait) + host_value(v, HostValue::CpuSteal);
    if (cpu > 100 + 1e-9)
      fail(n, "cpu_busy", fmt::format("cpu_busy + cpu_iowait + cpu_steal is {} %: at most 100", cpu));
    if (host_value(v, HostValue::MemoryPressureFull) > host_value(v, HostValue::MemoryPressureSome))
      fail(n, "memory_pressure_full", "PSI full (every task stalled) cannot exceed some: raise memory_pressure");
    if (host_value(v, HostValue::IoPressureFull) > host_value(v, HostValue::IoPressureSome))
      fail(n, "io_pressure_full", "PSI full (every task stalled) cannot exceed some: raise io_pressure");
  }

  Fault parse_fault(const YAML::Node& f, const Scenario& sc) {
    check_keys(f, "a fault", {"function", "gpu", "from", "until", "error", "delay_ms", "hang_s"});
    Fault out;
    if (!f["function"]) fail(f, "function", "a fault needs an NVML function name (or '*')");
    out.function = str(f["function"], "function");
    if (out.function != "*" && !is_nvml_symbol(out.function))
      fail(f["function"], "function", fmt::format("'{}' is not an NVML function the simulator exports", out.function));
    if (auto g = f["gpu"]) {
      const double gpu = number(g, "gpu");
      out.gpu = gpu >= 0 && gpu < static_cast<double>(sc.gpus.size()) && gpu == std::floor(gpu) ? static_cast<int>(gpu) : -1;
      if (out.gpu < 0)
        fail(g, "gpu", fmt::format("no GPU {} (the scenario has {})", g.as<std::string>(), sc.gpus.size()));
      // `gpu:` is the scenario index; faults act on NVML calls, which only NVIDIA GPUs answer.
      const core::Vendor vendor = sc.gpus[static_cast<std::size_t>(out.gpu)].vendor;
      if (vendor != core::Vendor::Nvidia)
        fail(g, "gpu", fmt::format("GPU {} is an {} GPU; faults act on NVML calls, which only NVIDIA GPUs answer", out.gpu,
                                   vendor == core::Vendor::Amd ? "AMD" : "Intel"));
    }
    if (f["from"]) out.from_s = duration(f["from"], "from");
    if (f["until"]) out.until_s = duration(f["until"], "until");
    if (f["error"]) out.error = error_code(f["error"], "error");
    if (f["delay_ms"]) out.delay_ms = bounded(f["delay_ms"], "delay_ms", 0, 3'600'000);  // at most an hour
    if (f["hang_s"]) out.hang_s = bounded(f["hang_s"], "hang_s", 0, 86'400);           // at most a day
    if (out.error == 0 && out.delay_ms == 0 && out.hang_s == 0)
      fail(f, "error", "a fault needs error, delay_ms or hang_s");
    return out;
  }

  // Consistency after overrides: free/used follow total, count and driver version.
  // Each vendor's interface numbers its own GPUs: count, index and minor number are the GPU's
  // among its vendor's (vendor_gpus.hpp), the scenario index everywhere else.
  static void finish(Scenario& sc) {
    for (auto& gpu : sc.gpus) {
      auto& v = gpu.values;
      auto set_if_default = [&](Key k, Value val) {
        if (!gpu.overridden[key_index(k)]) v[key_index(k)] = std::move(val);
      };
      const auto scenario_index = static_cast<unsigned>(&gpu - sc.gpus.data());
      const auto vendor_index = vendor_index_of(sc, gpu.vendor, scenario_index).value_or(scenario_index);
      set_if_default(Key::Count, parse_value(std::to_string(gpus_of_vendor(sc, gpu.vendor).size())));
      set_if_default(Key::Index, parse_value(std::to_string(vendor_index)));
      set_if_default(Key::MinorNumber, parse_value(std::to_string(vendor_index)));
      set_if_default(Key::DriverVersion, parse_value(sc.driver.version));
      const Value& total = v[key_index(Key::MemoryTotal)];
      const Value& reserved = v[key_index(Key::MemoryReserved)];
      const Value& used = v[key_index(Key::MemoryUsed)];
      if (total.is_number() && reserved.is_number() && used.is_number())
        set_if_default(Key::MemoryFree, parse_value(fmt::format("{}", std::max(0.0, total.number - reserved.number - used.number))));
      if (!gpu.mig.empty()) {
        set_if_default(Key::MigModeCurrent, parse_value("Enabled"));
        set_if_default(Key::MigModePending, parse_value("Enabled"));
        for (Key k : {Key::UtilizationGpu, Key::UtilizationMemory, Key::UtilizationEncoder, Key::UtilizationDecoder,
                      Key::UtilizationJpeg, Key::UtilizationOfa, Key::RemappedRowsCorrectable,
                      Key::RemappedRowsUncorrectable, Key::RemappedRowsPending, Key::RemappedRowsFailure})
          set_if_default(k, Value::make_error(3));
        double slice = total.is_number() ? total.number / 8 : 10000;
        double in_instances = 0;
        for (auto& inst : gpu.mig) {
          if (inst.memory_mib <= 0) {
            int g = std::atoi(inst.profile.c_str());
            inst.memory_mib = std::floor(slice * (g > 0 ? g : 1));
          }
          double used_here = inst.memory_used_mib;
          for (const auto& p : inst.processes) used_here += p.memory_mib;
          in_instances += std::min(used_here, inst.memory_mib);
        }
        // The parent's memory includes what the instances use.
        if (!gpu.overridden[key_index(Key::MemoryUsed)] && total.is_number() && used.is_number()) {
          double parent_used = used.number + in_instances;
          v[key_index(Key::MemoryUsed)] = parse_value(fmt::format("{}", parent_used));
          set_if_default(Key::MemoryFree,
                         parse_value(fmt::format("{}", std::max(0.0, total.number - (reserved.is_number() ? reserved.number : 0) - parent_used))));
        }
      }
    }
  }

  std::string label_;
  std::string base_dir_;
};

}  // namespace

core::Result<Scenario> parse_scenario(std::string_view yaml_text, std::string_view label, std::string_view base_dir) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    Parser parser(label, base_dir);
    return parser.parse(root);
  } catch (const ParseError& e) {
    return core::make_error(e.message);
  } catch (const YAML::Exception& e) {
    return core::make_error(fmt::format("{}:{}: malformed YAML: {}", label, e.mark.line + 1, e.msg));
  } catch (const std::exception& e) {
    return core::make_error(fmt::format("{}: {}", label, e.what()));
  }
}

}  // namespace gpuwatch::sim
