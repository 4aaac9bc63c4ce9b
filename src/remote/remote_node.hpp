#pragma once
// Another host's `gpuwatch serve`, read over HTTP(S) on its own threads (for `top --connect`):
// GET /api/v1/snapshot every interval, with connect and read timeouts, so a dead or slow host
// never stalls whoever reads it. state() returns the last good answer (GPUs, processes, active
// findings) with its age, and whether the latest request answered. Basic auth from the URL
// (http://user:password@host:port). The HTTP requests go through the gpuwatch-remote-http module
// (remote_module/), so only `top --connect` maps cpp-httplib.
// With the event stream on, a second thread reads GET /api/v1/events (server-sent events,
// remote_events.hpp): each GPU's values arrive as its sample finishes, and the snapshot (processes,
// findings) is then polled every kStreamedSnapshotPeriod only. A stream that ends or fails is
// reopened with backoff (resuming after the last event's id) and wakes the poller at once, so a
// killed host shows as down without waiting; a refused stream (404: a serve without the stream;
// 503: its --max-event-streams cap) falls back to polling every interval.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"
#include "live/view.hpp"

namespace gpuwatch::remote {

struct RemoteEndpoint {
  std::string scheme = "http";  // http or https
  std::string host;
  int port = 9835;
  std::string user, password;   // basic auth; empty: none
  // TLS (https): the CA to trust (empty: the system's), a client certificate and key for a serve
  // that asks for one, and whether to skip verifying the server (a test setup only).
  std::string ca_file, cert_file, key_file;
  bool insecure_skip_verify = false;
  std::string name() const;     // "host:port", how the UI names it
};

// "http://host:port", "https://user:pw@host:port", "host:port", "host" (port 9835); errors say why.
core::Result<RemoteEndpoint> parse_remote_url(const std::string& url);

struct RemoteSnapshot {
  core::Snapshot snapshot;                          // devices with the fields the JSON carries
  std::vector<live::DeviceStatus> status;                 // parallel to snapshot.devices
  std::map<std::uint32_t, std::string> users;       // pid -> user, when serve reports them
  std::map<std::uint32_t, std::string> owners;      // pid -> container/pod/job summary, when known
  std::vector<diagnose::Finding> findings;          // active findings (kind, severity, gpus, summary)
  std::size_t gpus_dropped = 0;                     // beyond kMaxRemoteGpus: not kept (capped_note says so)
  std::size_t processes_dropped = 0;                // beyond kMaxRemoteProcessesPerGpu, over all GPUs
};

// What `top --connect` keeps of one host's snapshot (docs/security.md): the GPUs beyond the
// first 64 and the processes beyond the first 1,024 of a GPU are dropped while parsing (never
// held), and the screen says so. A real node has at most 16 GPUs; 64 leaves room for MIG.
inline constexpr std::size_t kMaxRemoteGpus = 64;
inline constexpr std::size_t kMaxRemoteProcessesPerGpu = 1024;

// "showing 64 of 5000 GPUs, 12 processes not shown (cap: 64 GPUs, 1024 processes a GPU)";
// empty when nothing was dropped.
std::string capped_note(const RemoteSnapshot& snapshot);

// The body of /api/v1/snapshot (docs/api.md) back into values. Pure.
core::Result<RemoteSnapshot> parse_snapshot_json(const std::string& body);

struct RemoteState {
  std::string name;               // endpoint name
  bool answered = false;          // the latest request succeeded
  bool has_snapshot = false;      // some request ever succeeded
  std::string error;              // why the latest failed
  double age_seconds = 0;         // since the last good answer
  RemoteSnapshot last;            // the last good answer, with the stream's newer values applied
  bool streaming = false;         // the event stream is open
  std::string stream_note;        // why it is not (refused, failed, off); empty while streaming
};

// While the stream brings the values, the snapshot (processes, findings) is read this often.
inline constexpr std::chrono::milliseconds kStreamedSnapshotPeriod{2000};

class RemoteNode {
 public:
  // STREAM: also read the event stream (above); false: poll the snapshot only.
  RemoteNode(RemoteEndpoint endpoint, std::chrono::milliseconds interval, std::chrono::milliseconds timeout,
             bool stream = false);
  ~RemoteNode();
  RemoteNode(const RemoteNode&) = delete;
  RemoteNode& operator=(const RemoteNode&) = delete;

  void start();
  void stop();  // waits at most one request's timeout (an open stream is shut at once)
  RemoteState state() const;

 private:
  void poll();
  // One stream connection, until it ends; returns how long to wait before the next.
  std::chrono::milliseconds read_stream(int& failures);
  RemoteEndpoint endpoint_;
  std::chrono::milliseconds interval_, timeout_;
  bool stream_ = false;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool poll_now_ = false;         // the stream ended: ask the host at once
  RemoteState state_;
  std::chrono::steady_clock::time_point last_good_{};
  std::uint64_t last_seq_ = 0;    // the last event's id (Last-Event-ID on reconnect)
  std::function<void()> stop_stream_;  // shuts the open stream's connection, so stop() is prompt
  std::thread thread_, stream_thread_;
};

}  // namespace gpuwatch::remote
