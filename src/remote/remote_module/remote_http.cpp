// The gpuwatch-remote-http module: `top --connect`'s HTTP(S) requests through cpp-httplib
// (remote_http_module.hpp says why this is a module).
#include <httplib.h>

#include <memory>
#include <string>

#include "remote/remote_module/remote_http_module.hpp"

namespace gpuwatch::remote {
namespace {

std::string base_url(const RemoteEndpoint& endpoint) {
  const bool ipv6 = endpoint.host.find(':') != std::string::npos;
  return endpoint.scheme + "://" + (ipv6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
}

void set_timeouts(httplib::Client& client, std::chrono::milliseconds timeout, std::chrono::milliseconds read_timeout) {
  auto split = [](std::chrono::milliseconds t) {
    return std::pair{static_cast<time_t>(t.count() / 1000), static_cast<time_t>((t.count() % 1000) * 1000)};
  };
  auto [seconds, micros] = split(timeout);
  auto [read_seconds, read_micros] = split(read_timeout);
  client.set_connection_timeout(seconds, micros);
  client.set_read_timeout(read_seconds, read_micros);
  client.set_write_timeout(seconds, micros);
}

std::unique_ptr<httplib::Client> make_client(const RemoteEndpoint& endpoint) {
  const std::string base = base_url(endpoint);
  auto client = endpoint.cert_file.empty() ? std::make_unique<httplib::Client>(base)
                                           : std::make_unique<httplib::Client>(base, endpoint.cert_file, endpoint.key_file);
  if (endpoint.scheme == "https") {
    if (!endpoint.ca_file.empty()) client->set_ca_cert_path(endpoint.ca_file);
    client->enable_server_certificate_verification(!endpoint.insecure_skip_verify);
  }
  if (!endpoint.user.empty()) client->set_basic_auth(endpoint.user, endpoint.password);
  return client;
}

}  // namespace
}  // namespace gpuwatch::remote

GPUWATCH_MODULE_EXPORT const char* gpuwatch_module_version() { return GPUWATCH_MODULE_VERSION; }

GPUWATCH_MODULE_EXPORT void gpuwatch_remote_get(const gpuwatch::remote::RemoteEndpoint& endpoint,
                                                std::chrono::milliseconds timeout, const std::string& path,
                                                gpuwatch::remote::RemoteGetResult& out) {
  using namespace gpuwatch::remote;
  out = RemoteGetResult{};
  auto client = make_client(endpoint);
  set_timeouts(*client, timeout, timeout);
  auto response = client->Get(path);
  if (!response) {
    out.error = httplib::to_string(response.error());
    return;
  }
  out.answered = true;
  out.status = response->status;
  out.body = std::move(response->body);
}

GPUWATCH_MODULE_EXPORT void gpuwatch_remote_stream(const gpuwatch::remote::RemoteEndpoint& endpoint,
                                                   const gpuwatch::remote::RemoteStreamRequest& request,
                                                   gpuwatch::remote::RemoteStreamResult& out) {
  using namespace gpuwatch::remote;
  out = RemoteStreamResult{};
  auto client = make_client(endpoint);
  set_timeouts(*client, request.timeout, request.read_timeout);
  httplib::Headers headers(request.headers.begin(), request.headers.end());
  httplib::Client* raw = client.get();
  if (request.set_stop) request.set_stop([raw] { raw->stop(); });
  auto result = client->Get(
      request.path, headers, [&](const httplib::Response& response) { return request.on_status(response.status); },
      [&](const char* data, std::size_t size) { return request.on_data(data, size); });
  if (request.set_stop) request.set_stop({});
  out.ok = static_cast<bool>(result);
  if (!result) out.error = httplib::to_string(result.error());
}
