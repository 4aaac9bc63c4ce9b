#pragma once
// The entry points of the gpuwatch-remote-http module (remote_http.cpp), as the loader
// (remote/remote_node.cpp) and the module both see them: the HTTP(S) client of `top --connect`.
// cpp-httplib is linked by this module alone, so no other command maps it or pays for the
// OpenSSL start-up its library runs when loaded (issue 26: a tenth of a one-shot status's
// instructions). Both sides are built together, with the same compiler, so C++ types may cross;
// the module's version is checked on load.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/optional_module.hpp"
#include "remote/remote_node.hpp"

namespace gpuwatch::remote {

inline constexpr const char* kRemoteHttpModule = "gpuwatch-remote-http.so";
inline constexpr const char* kRemoteGetSymbol = "gpuwatch_remote_get";
inline constexpr const char* kRemoteStreamSymbol = "gpuwatch_remote_stream";

struct RemoteGetResult {
  bool answered = false;  // an HTTP answer came (any status)
  int status = 0;
  std::string body;
  std::string error;      // why there was no answer
};

// A GET of PATH on the endpoint, with TIMEOUT for connecting, reading and writing.
using RemoteGetFn = void(const RemoteEndpoint& endpoint, std::chrono::milliseconds timeout, const std::string& path,
                         RemoteGetResult& out);

struct RemoteStreamRequest {
  std::chrono::milliseconds timeout{0};       // connecting and writing
  std::chrono::milliseconds read_timeout{0};  // between two reads of the body
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;
  // Called with a function that shuts the connection once it exists, and with {} before it goes.
  std::function<void(std::function<void()>)> set_stop;
  std::function<bool(int status)> on_status;                   // false: do not read the body
  std::function<bool(const char* data, std::size_t size)> on_data;  // false: stop reading
};

struct RemoteStreamResult {
  bool ok = false;    // ended without an error (the server closed, or a callback stopped it)
  std::string error;  // what went wrong otherwise
};

using RemoteStreamFn = void(const RemoteEndpoint& endpoint, const RemoteStreamRequest& request,
                            RemoteStreamResult& out);

}  // namespace gpuwatch::remote

GPUWATCH_MODULE_EXPORT gpuwatch::remote::RemoteGetFn gpuwatch_remote_get;
GPUWATCH_MODULE_EXPORT gpuwatch::remote::RemoteStreamFn gpuwatch_remote_stream;
