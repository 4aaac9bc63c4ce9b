#pragma once
// `top --connect-config FILE`: the hosts to watch, with basic auth and TLS, in YAML, named as in a
// Prometheus scrape config, so that no password sits on a command line:
//
//   hosts:
//     - url: https://gpu1:9835
//       basic_auth: {username: alice, password_file: /etc/gpuwatch/gpu1.password}
//       tls_config: {ca_file: /etc/gpuwatch/ca.pem, cert_file: client.pem, key_file: client.key,
//                    insecure_skip_verify: false}
//     - url: http://gpu2:9835
//
// Relative file paths are relative to the config file's folder. Unknown keys and bad values are
// errors that name the file, the key and the problem.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "remote/remote_node.hpp"

namespace gpuwatch::remote {

// Pure: TEXT is the file's content, SOURCE its path (for messages and relative paths). Password
// files are read here (the only I/O), trailing newline dropped.
core::Result<std::vector<RemoteEndpoint>> parse_remote_config(const std::string& text, const std::string& source);
core::Result<std::vector<RemoteEndpoint>> load_remote_config(const std::string& path);

}  // namespace gpuwatch::remote
