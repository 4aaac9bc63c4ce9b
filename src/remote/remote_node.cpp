#include "remote/remote_node.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <memory>
#include <fmt/format.h>

#include "core/field_table.hpp"
#include "remote/json_field_value.hpp"
#include "remote/remote_events.hpp"
#include "remote/remote_module/remote_http_module.hpp"

namespace gpuwatch::remote {

std::string RemoteEndpoint::name() const { return fmt::format("{}:{}", host, port); }

core::Result<RemoteEndpoint> parse_remote_url(const std::string& url) {
  RemoteEndpoint e;
  std::string rest = url;
  if (auto at = rest.find("://"); at != std::string::npos) {
    e.scheme = rest.substr(0, at);
    rest = rest.substr(at + 3);
    if (e.scheme != "http" && e.scheme != "https") {
      return core::make_error("--connect: '" + url + "': the scheme must be http or https");
    }
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) rest = rest.substr(0, slash);
  if (auto at = rest.rfind('@'); at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    auto colon = userinfo.find(':');
    e.user = userinfo.substr(0, colon);
    if (colon != std::string::npos) e.password = userinfo.substr(colon + 1);
  }
  std::string port_text;
  if (!rest.empty() && rest.front() == '[') {  // [::1]:9835
    auto close = rest.find(']');
    if (close == std::string::npos) return core::make_error("--connect: '" + url + "': unclosed [ in the address");
    e.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port_text = rest.substr(close + 2);
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    e.host = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  } else {
    e.host = rest;
  }
  if (e.host.empty()) return core::make_error("--connect: '" + url + "': no host");
  if (!port_text.empty()) {
    int port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535) {
      return core::make_error("--connect: '" + url + "': the port must be 1 to 65535");
    }
    e.port = port;
  } else if (e.scheme == "https") {
    e.port = 443;
  }
  return e;
}

namespace {

std::optional<double> number(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

// Drops, while parsing, the GPUs (root.gpus[i]) beyond kMaxRemoteGpus and the processes
// (root.gpus[i].processes[j]) beyond kMaxRemoteProcessesPerGpu, counting them: a hostile
// host's thousands of GPUs are never held as JSON nor as snapshots.
class RemoteSnapshotCap {
 public:
  bool keep(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth < 0 || depth > 64) return true;  // nlohmann's own depth handling applies
    const auto at = static_cast<std::size_t>(depth);
    if (keys_.size() <= at) keys_.resize(at + 1);
    if (event == Event::key) {
      keys_[at] = parsed.is_string() ? parsed.get<std::string>() : std::string();
      return true;
    }
    if (event != Event::object_start) return true;
    if (depth == 2 && keys_[1] == "gpus") {
      processes_ = 0;
      if (++gpus_ <= kMaxRemoteGpus) return true;
      ++gpus_dropped;
      return false;
    }
    if (depth == 4 && keys_[1] == "gpus" && keys_[3] == "processes" && gpus_ <= kMaxRemoteGpus) {
      if (++processes_ <= kMaxRemoteProcessesPerGpu) return true;
      ++processes_dropped;
      return false;
    }
    return true;
  }
  std::size_t gpus_dropped = 0;
  std::size_t processes_dropped = 0;

 private:
  std::vector<std::string> keys_;  // the latest key at each depth
  std::size_t gpus_ = 0;
  std::size_t processes_ = 0;
};

std::string capped_note(const RemoteSnapshot& snapshot) {
  std::string note;
  if (snapshot.gpus_dropped > 0) {
    note = fmt::format("showing {} of {} GPUs", snapshot.snapshot.devices.size(),
                       snapshot.snapshot.devices.size() + snapshot.gpus_dropped);
  }
  if (snapshot.processes_dropped > 0) {
    note += fmt::format("{}{} processes not shown", note.empty() ? "" : ", ", snapshot.processes_dropped);
  }
  if (!note.empty()) note += fmt::format(" (cap: {} GPUs, {} processes a GPU)", kMaxRemoteGpus, kMaxRemoteProcessesPerGpu);
  return note;
}

core::Result<RemoteSnapshot> parse_snapshot_json(const std::string& body) {
  nlohmann::json root;
  RemoteSnapshotCap cap;
  try {
    root = nlohmann::json::parse(
        body, [&cap](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          return cap.keep(depth, event, parsed);
        });
  } catch (const nlohmann::json::exception& e) {
    return core::make_error(std::string("not a gpuwatch snapshot: ") + e.what());
  }
  if (!root.is_object() || !root.contains("gpus") || !root["gpus"].is_array()) {
    return core::make_error("not a gpuwatch snapshot: no gpus[]");
  }
  static const std::map<std::string_view, core::FieldId> by_key = [] {
    std::map<std::string_view, core::FieldId> m;
    for (const auto& f : core::field_table()) m.emplace(f.json_key, f.id);
    return m;
  }();
  RemoteSnapshot out;
  if (auto d = root.find("driver_version"); d != root.end() && d->is_string()) out.snapshot.driver_version = d->get<std::string>();
  for (const auto& gpu : root["gpus"]) {
    if (!gpu.is_object()) continue;
    core::DeviceSnapshot device;
    device.index = static_cast<unsigned>(number(gpu, "index").value_or(out.snapshot.devices.size()));
    // A node of an older gpuwatch has no "vendor": its GPUs are NVIDIA's (all it could read).
    if (auto v = gpu.find("vendor"); v != gpu.end() && v->is_string()) {
      device.vendor = core::vendor_from_string(v->get<std::string>()).value_or(core::Vendor::Nvidia);
    }
    const std::string state = gpu.value("state", std::string("ok"));
    device.state = state == "lost" ? core::DeviceState::Lost
                   : state == "inaccessible" ? core::DeviceState::Inaccessible
                                             : core::DeviceState::Ok;
    for (const auto& [key, value] : gpu.items()) {
      auto found = by_key.find(key);
      if (found == by_key.end()) continue;
      if (auto v = field_value_of_json(value, JsonText::kept)) device.get(found->second) = core::FieldReading::of(*v);
    }
    live::DeviceStatus status;
    status.has_sample = state != "not_sampled";
    status.up = gpu.value("up", false);
    status.sample_age_seconds = number(gpu, "sample_age_seconds").value_or(0);
    if (auto p = gpu.find("processes"); p != gpu.end() && p->is_array()) {
      device.processes_status = core::FieldStatus::Ok;
      for (const auto& proc : *p) {
        core::ProcessSample s;
        s.pid = static_cast<std::uint32_t>(number(proc, "pid").value_or(0));
        s.name = proc.value("name", std::string());
        if (auto m = number(proc, "used_memory_bytes")) s.used_memory_bytes = static_cast<std::uint64_t>(*m);
        const std::string type = proc.value("type", std::string("C"));
        s.type = type == "G" ? core::ProcessType::Graphics : type == "C+G" ? core::ProcessType::ComputeAndGraphics
                                                                           : core::ProcessType::Compute;
        s.sm_ratio = number(proc, "sm_ratio");
        if (auto gi = number(proc, "gpu_instance_id")) s.gpu_instance_id = static_cast<std::uint32_t>(*gi);
        if (auto u = proc.find("user"); u != proc.end() && u->is_string()) out.users[s.pid] = u->get<std::string>();
        if (auto o = proc.find("owner"); o != proc.end() && o->is_object()) {
          if (auto summary = o->find("summary"); summary != o->end() && summary->is_string()) {
            out.owners[s.pid] = summary->get<std::string>();
          }
        }
        device.processes.push_back(std::move(s));
      }
    }
    if (auto f = gpu.find("findings"); f != gpu.end() && f->is_array()) {
      for (const auto& item : *f) {
        diagnose::Finding finding;
        finding.kind = item.value("kind", std::string());
        finding.summary = item.value("summary", std::string());
        finding.severity = diagnose::severity_from_string(item.value("severity", std::string("info")))
                               .value_or(diagnose::Severity::Info);
        finding.gpus = {device.index};
        out.findings.push_back(std::move(finding));
      }
    }
    out.snapshot.devices.push_back(std::move(device));
    out.status.push_back(status);
  }
  out.snapshot.device_count = static_cast<unsigned>(out.snapshot.devices.size());
  out.gpus_dropped = cap.gpus_dropped;
  out.processes_dropped = cap.processes_dropped;
  return out;
}

RemoteNode::RemoteNode(RemoteEndpoint endpoint, std::chrono::milliseconds interval, std::chrono::milliseconds timeout,
                       bool stream)
    : endpoint_(std::move(endpoint)), interval_(interval), timeout_(timeout), stream_(stream) {
  state_.name = endpoint_.name();
  state_.error = "connecting";
  state_.stream_note = stream ? "connecting" : "off";
}

RemoteNode::~RemoteNode() { stop(); }

void RemoteNode::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      poll_now_ = false;
      lock.unlock();
      poll();
      lock.lock();
      const auto period = state_.streaming ? std::max(interval_, kStreamedSnapshotPeriod) : interval_;
      wake_.wait_for(lock, period, [this] { return stopping_ || poll_now_; });
    }
  });
  if (!stream_) return;
  stream_thread_ = std::thread([this] {
    int failures = 0;
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      const auto pause = read_stream(failures);
      lock.lock();
      wake_.wait_for(lock, pause, [this] { return stopping_; });
    }
  });
}

void RemoteNode::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (stop_stream_) stop_stream_();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (stream_thread_.joinable()) stream_thread_.join();
}

RemoteState RemoteNode::state() const {
  std::lock_guard lock(mutex_);
  RemoteState s = state_;
  if (s.has_snapshot) s.age_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_good_).count();
  return s;
}

namespace {

// Longer than serve's keep-alive comment period (10 s without events): a quiet stream is not a dead one.
constexpr std::chrono::milliseconds kStreamReadTimeout{15000};

}  // namespace

void RemoteNode::poll() {
  RemoteGetResult response;
  if (auto get = core::module_function<RemoteGetFn>(kRemoteHttpModule, kRemoteGetSymbol); !get) {
    response.error = get.error().message;
  } else {
    get->call(endpoint_, timeout_, "/api/v1/snapshot", response);
  }
  std::string error;
  std::optional<RemoteSnapshot> parsed;
  if (!response.answered) {
    error = "no answer: " + response.error;
  } else if (response.status != 200) {
    error = fmt::format("HTTP {}", response.status);
  } else if (auto p = parse_snapshot_json(response.body); !p) {
    error = p.error().message;
  } else {
    parsed = std::move(*p);
  }
  std::lock_guard lock(mutex_);
  state_.answered = parsed.has_value();
  state_.error = error;
  if (parsed) {
    state_.has_snapshot = true;
    state_.last = std::move(*parsed);
    last_good_ = std::chrono::steady_clock::now();
  }
}

std::chrono::milliseconds RemoteNode::read_stream(int& failures) {
  using std::chrono::milliseconds;
  RemoteStreamRequest request;
  request.timeout = timeout_;
  request.read_timeout = kStreamReadTimeout;
  request.path = "/api/v1/events";
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return milliseconds(0);
    if (last_seq_ > 0) request.headers.emplace_back("Last-Event-ID", std::to_string(last_seq_));
  }
  request.set_stop = [this](std::function<void()> stop) {
    std::lock_guard lock(mutex_);
    if (stopping_ && stop) stop();  // stop() came first: shut it at once
    stop_stream_ = std::move(stop);
  };
  int status = 0;
  bool opened = false;
  SseParser parser;
  request.on_status = [&](int answer) {
    status = answer;
    return status == 200;
  };
  request.on_data = [&](const char* data, std::size_t size) {
    auto events = parser.feed(std::string_view(data, size));
    if (parser.overflowed()) return false;
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    if (!opened) {
      opened = true;
      failures = 0;
      state_.streaming = true;
      state_.stream_note.clear();
    }
    for (const auto& event : events) {
      if (event.type != "sample" || !state_.has_snapshot) continue;
      if (auto seq = apply_sample_event(event.data, state_.last)) {
        last_seq_ = *seq;
        last_good_ = std::chrono::steady_clock::now();
        state_.answered = true;  // values arrive: the host answers
        state_.error.clear();
      }
    }
    return true;
  };
  RemoteStreamResult result;
  if (auto stream = core::module_function<RemoteStreamFn>(kRemoteHttpModule, kRemoteStreamSymbol); !stream) {
    result.error = stream.error().message;
  } else {
    stream->call(endpoint_, request, result);
  }
  std::lock_guard lock(mutex_);
  stop_stream_ = nullptr;
  state_.streaming = false;
  if (stopping_) return milliseconds(0);
  poll_now_ = true;  // ended or failed: is the host still there?
  wake_.notify_all();
  ++failures;
  // Refused: the server has no stream for us (404) or no room (503, its cap): poll meanwhile.
  if (status != 0 && status != 200) {
    state_.stream_note = fmt::format("stream refused (HTTP {}), polling", status);
    return status == 404 ? milliseconds(60000) : milliseconds(std::min(5000 * failures, 30000));
  }
  state_.stream_note = parser.overflowed() ? "stream: not an event stream, polling"
                       : !result.ok ? "stream: " + result.error + ", polling"
                                 : "stream ended, polling";
  // Backoff: 0.5 s, 1 s, 2 s, ... at most 5 s.
  return milliseconds(std::min(500 << std::min(failures - 1, 4), 5000));
}

}  // namespace gpuwatch::remote
