#pragma once
// `serve --remote-write URL --remote-write-config FILE`: where and how to push, in YAML, with the
// key names of Prometheus's remote_write section so that no secret sits on a command line:
//
//   external_labels: {cluster: hpc-a, site: lab}        # added where a series lacks the label
//   basic_auth: {username: gpu, password_file: /etc/gpuwatch/push.password}
//   bearer_token_file: /etc/gpuwatch/push.token           # or basic_auth, not both
//   tls_config: {ca_file: /etc/gpuwatch/ca.pem, insecure_skip_verify: false,
//                cert_file: /etc/gpuwatch/client.pem, key_file: /etc/gpuwatch/client.key}  # mutual TLS: both or neither
//                # key_password_file: /etc/gpuwatch/client.key.pass  (an encrypted key's passphrase, only with key_file)
//   remote_timeout: 10s
//   buffer: {dir: /var/lib/gpuwatch/remote-write, max_size: 256MiB, max_age: 2h}
//
// Relative paths are relative to the file's folder. Secrets are read from *_file only (64 KiB at
// most, trailing newlines dropped); the file itself at most 1 MiB (core/bounded_read.hpp).
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "notify/curl_transport.hpp"
#include "push/segment_buffer.hpp"
#include "push/write_request.hpp"

namespace gpuwatch::push {

struct PushConfig {
  std::string url;                      // http(s)://host:port/api/v1/write
  std::vector<Label> external_labels;
  std::string username, password;       // basic auth when username is set
  std::string bearer_token;             // Authorization: Bearer ...
  notify::TlsOptions tls;
  std::chrono::milliseconds timeout{10000};
  std::filesystem::path buffer_dir;     // "" until resolved (default_buffer_dir)
  BufferLimits limits;
};

// Pure but for the secret files it names. SOURCE: the path, for messages and relative paths.
core::Result<PushConfig> parse_push_config(const std::string& text, const std::string& source);
// URL from --remote-write, the rest from PATH ("" = defaults only).
core::Result<PushConfig> load_push_config(const std::string& url, const std::string& path);

// "256MiB", "1GiB", "500MB", "1048576": bytes.
core::Result<std::uintmax_t> parse_byte_size(const std::string& text);

// Where the buffer lives when the file names no folder: beside the history database when serve
// records (DB_PATH), else $STATE_DIRECTORY, $XDG_STATE_HOME/gpuwatch or ~/.local/state/gpuwatch.
std::filesystem::path default_buffer_dir(const std::string& db_path);

}  // namespace gpuwatch::push
