#pragma once
// Turns the tls_server_config of a web config (web_config.hpp) into an OpenSSL server
// context: certificate chain and key (checked to match), client CA and verification policy
// (Go's ClientAuthType semantics), protocol versions, no compression or renegotiation.
// OpenSSL is only forward-declared here.
#include "core/result.hpp"
#include "exporter/http/web_config.hpp"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace gpuwatch::exporter {

// Applies CONFIG to CTX (a fresh server context). Errors name the config key and the file:
// "cannot read cert_file '/etc/gpuwatch/server.crt': No such file or directory" (a FIFO, a device
// or a file over 1 MiB is refused without reading it: core/bounded_read.hpp).
core::Result<void> configure_tls_context(ssl_ctx_st& ctx, const TlsServerConfig& config);

// Builds a throwaway context from CONFIG, so unreadable, malformed or mismatched files are
// reported before anything starts.
core::Result<void> check_tls_config(const TlsServerConfig& config);

}  // namespace gpuwatch::exporter
