#pragma once
// The entry points of the gpuwatch-curl module (curl_transport.cpp), as the loader
// (notify/curl_transport.cpp) and the module both see them. Both sides are built together, with
// the same compiler, so C++ types may cross; the module's version is checked on load. The entry
// points' names carry the revision of the structs they take (_v2: TlsOptions got cert_file and
// key_file; _v3: key_password), so a stale module of the same version in a build tree fails to
// load its symbol instead of reading a request of another layout; bump it whenever a struct
// below changes.
#include <atomic>

#include "core/optional_module.hpp"
#include "notify/curl_transport.hpp"
#include "notify/send_result.hpp"

namespace gpuwatch::notify {

inline constexpr const char* kCurlModule = "gpuwatch-curl.so";
inline constexpr const char* kCurlHttpPostSymbol = "gpuwatch_curl_http_post_v3";
inline constexpr const char* kCurlSmtpSendSymbol = "gpuwatch_curl_smtp_send_v3";
using CurlHttpPostFn = void(const HttpRequest& request, const std::atomic<bool>* cancel, SendResult& out);
using CurlSmtpSendFn = void(const SmtpRequest& request, const std::atomic<bool>* cancel, SendResult& out);

}  // namespace gpuwatch::notify

GPUWATCH_MODULE_EXPORT gpuwatch::notify::CurlHttpPostFn gpuwatch_curl_http_post_v3;
GPUWATCH_MODULE_EXPORT gpuwatch::notify::CurlSmtpSendFn gpuwatch_curl_smtp_send_v3;
