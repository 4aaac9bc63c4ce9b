#pragma once
// What one attempt to hand a message to a receiver came to.
#include <optional>
#include <string>

namespace gpuwatch::notify {

struct SendResult {
  bool accepted = false;      // the receiver took it: HTTP 2xx, SMTP 250 after the data, exit status 0
  // Not accepted, and the receiver may have it all the same: the whole request went out and no
  // answer came (a timeout, or stop() mid-call). Not resent (at most once), except to channels
  // where a second copy is harmless (alertmanager).
  bool maybe_delivered = false;
  bool permanent = false;     // retrying cannot help (HTTP 4xx other than 408/429, a bad command)
  std::optional<long> status; // the HTTP status, SMTP reply code or exit status, when there was one
  std::string answer;         // the start of the receiver's answer (at most 512 bytes)
  std::string error;          // what went wrong ("" when accepted); never quotes a secret
};

// "HTTP 200: ok", "exit status 1: ...", "connection refused (...)": for logs and `alerts test`.
std::string summarize(const SendResult& result);

}  // namespace gpuwatch::notify
