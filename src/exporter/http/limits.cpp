#include "exporter/http/limits.hpp"

#include <string>

namespace gpuwatch::exporter::http {

core::Result<void> check_limits(const ServerLimits& limits) {
  if (limits.max_header_bytes < 1024) return core::make_error("max_header_bytes: at least 1024");
  if (limits.max_header_count == 0) return core::make_error("max_header_count: at least 1");
  if (limits.header_deadline.count() <= 0) return core::make_error("header_deadline: must be positive");
  if (limits.idle_timeout.count() <= 0) return core::make_error("idle_timeout: must be positive");
  if (limits.write_timeout.count() <= 0) return core::make_error("write_timeout: must be positive");
  if (limits.max_connections == 0) return core::make_error("max_connections: at least 1");
  return {};
}

RefusalAnswer refusal_answer(Refusal refusal, const ServerLimits& limits, std::string_view detail) {
  RefusalAnswer answer{400, ""};
  switch (refusal) {
    case Refusal::HeaderTooLarge:
      answer = {431, "request headers too large (limit " + std::to_string(limits.max_header_bytes) + " bytes)"};
      break;
    case Refusal::TooManyHeaders:
      answer = {431, "too many request headers (limit " + std::to_string(limits.max_header_count) + ")"};
      break;
    case Refusal::BodyTooLarge:
      answer = {413, "request body too large (limit " + std::to_string(limits.max_body_bytes) + " bytes)"};
      break;
    case Refusal::MalformedRequest: answer = {400, "malformed HTTP request"}; break;
    case Refusal::BadTarget: answer = {400, "bad request target"}; break;
    case Refusal::UnsupportedVersion: answer = {505, "only HTTP/1.0 and HTTP/1.1 are supported"}; break;
  }
  if (!detail.empty()) answer.message += ": " + std::string(detail);
  return answer;
}

}  // namespace gpuwatch::exporter::http
