#pragma once
// HTTP(S) POST and SMTP submission through libcurl, in the gpuwatch-curl module
// (curl_module/, the only place <curl/curl.h> is included), loaded on the first call. Every call has a timeout, and CANCEL (when set) aborts it within
// about a second, mid-request too (libcurl's progress callback), so stop() is prompt.
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "notify/send_result.hpp"

namespace gpuwatch::notify {

struct TlsOptions {
  std::string ca_file;            // "" = the system's CA store
  bool insecure_skip_verify = false;
  // A client certificate (mutual TLS), PEM, both or neither: push's tls_config.cert_file/key_file,
  // a notification channel's cert_file/key_file.
  std::string cert_file;
  std::string key_file;
  // Secret: the passphrase of an encrypted key_file, read from key_password_file
  // (core/key_password_file.hpp); "" = the key is not encrypted. Never shown.
  std::string key_password;
};

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;   // "Name: value"
  std::string body;
  std::string username, password;     // HTTP basic auth when username is set
  TlsOptions tls;
  std::chrono::milliseconds timeout{10000};
};

struct SmtpRequest {
  std::string url;                    // smtp://host:port or smtps://host:port
  bool require_starttls = true;       // smtp://: STARTTLS or fail (CURLUSESSL_ALL)
  std::string username, password;     // AUTH when username is set
  std::string from;
  std::vector<std::string> to;
  std::string message;                // RFC 5322 text, CRLF line ends
  TlsOptions tls;
  std::chrono::milliseconds timeout{10000};
};

// The caller scrubs secrets from the result's text (notify::redact) before showing it.
SendResult http_post(const HttpRequest& request, const std::atomic<bool>* cancel);
SendResult smtp_send(const SmtpRequest& request, const std::atomic<bool>* cancel);

}  // namespace gpuwatch::notify
