#include "notify/curl_transport.hpp"

#include <string>

#include "notify/curl_module/curl_module.hpp"

namespace gpuwatch::notify {
namespace {

// libcurl is loaded the first time a notification goes out (src/core/optional_module.hpp).
template <typename Fn, typename Request>
SendResult send_through_module(const char* symbol, const Request& request, const std::atomic<bool>* cancel) {
  SendResult result;
  auto send = core::module_function<Fn>(kCurlModule, symbol);
  if (!send) {
    result.error = send.error().message;  // not permanent: kept queued for a fixed install
    return result;
  }
  send->call(request, cancel, result);
  return result;
}

}  // namespace

SendResult http_post(const HttpRequest& request, const std::atomic<bool>* cancel) {
  return send_through_module<CurlHttpPostFn>(kCurlHttpPostSymbol, request, cancel);
}

SendResult smtp_send(const SmtpRequest& request, const std::atomic<bool>* cancel) {
  return send_through_module<CurlSmtpSendFn>(kCurlSmtpSendSymbol, request, cancel);
}

}  // namespace gpuwatch::notify
