#pragma once
// `top --connect URL,...`: the GPUs of other hosts, each read by its own remote::RemoteNode
// threads from that host's `gpuwatch serve`: its event stream (/api/v1/events) for the values as
// each sample finishes, and /api/v1/snapshot for processes and findings (every interval when the
// stream is refused). read() only copies their last answers: a dead or slow host shows as DOWN
// with its error, and never delays the others or a key. Model::note says how many hosts are up.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "remote/remote_node.hpp"
#include "tui/data_source.hpp"

namespace gpuwatch::tui {

// The GPUs and processes of one remote host's latest state, named by the host. Pure.
void add_remote(const remote::RemoteState& state, Model& model);

// The title's word on the hosts: "all up", or "1 up, 1 down"; "(1 polled)" added for hosts that
// answer but refused the event stream, so their values come every interval. Pure.
std::string hosts_note(const std::vector<remote::RemoteState>& states);

class RemoteSource : public DataSource {
 public:
  RemoteSource(const std::vector<remote::RemoteEndpoint>& endpoints, std::chrono::milliseconds interval);
  void start() override;
  Model read() override;
  bool stop() override;

 private:
  std::vector<std::unique_ptr<remote::RemoteNode>> nodes_;
};

}  // namespace gpuwatch::tui
