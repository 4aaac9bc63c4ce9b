// The gpuwatch-curl module: HTTP(S) POST and SMTP submission through libcurl, which only this
// module links. Loaded by notify/curl_transport.cpp the first time a notification goes out.
#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <exception>
#include <mutex>

#include "notify/curl_module/curl_module.hpp"

namespace gpuwatch::notify {
namespace {

constexpr std::size_t kAnswerBytes = 512;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  const std::atomic<bool>* cancel = nullptr;
  std::string answer;
  const std::string* upload = nullptr;  // SMTP: the message, read by read_callback
  std::size_t uploaded = 0;
};

std::size_t write_callback(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  if (transfer->answer.size() < kAnswerBytes) {
    transfer->answer.append(data, std::min(bytes, kAnswerBytes - transfer->answer.size()));
  }
  return bytes;
}

std::size_t read_callback(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t room = size * count;
  const std::size_t left = transfer->upload->size() - transfer->uploaded;
  const std::size_t n = std::min(room, left);
  std::memcpy(buffer, transfer->upload->data() + transfer->uploaded, n);
  transfer->uploaded += n;
  return n;
}

int progress_callback(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  return transfer->cancel != nullptr && transfer->cancel->load() ? 1 : 0;  // non-zero aborts
}

using Easy = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using Slist = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

void common_options(CURL* curl, Transfer& transfer, const TlsOptions& tls, std::chrono::milliseconds timeout,
                    char* error_buffer) {
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<long long>(timeout.count(), 5000)));
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress_callback);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_callback);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  if (!tls.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (tls.insecure_skip_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!tls.cert_file.empty()) {  // mutual TLS: the config's loader checked that both are set
    curl_easy_setopt(curl, CURLOPT_SSLCERT, tls.cert_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY, tls.key_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
    // An encrypted key's passphrase (key_password_file). Without one, the loader refused an
    // encrypted key (core/key_password_file.hpp), so OpenSSL never asks on a terminal.
    if (!tls.key_password.empty()) curl_easy_setopt(curl, CURLOPT_KEYPASSWD, tls.key_password.c_str());
  }
}

// Whether the failure left the receiver maybe holding the message: the connection was made and
// the whole request went out before the error (a timeout waiting for the answer, an abort).
bool request_went_out(CURL* curl, CURLcode code, std::size_t request_bytes) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_ABORTED_BY_CALLBACK:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      break;
    default: return false;  // resolve, connect, TLS handshake, send errors: it never arrived whole
  }
  curl_off_t uploaded = 0;
  curl_easy_getinfo(curl, CURLINFO_SIZE_UPLOAD_T, &uploaded);
  return uploaded >= static_cast<curl_off_t>(request_bytes);
}

std::string error_text(CURLcode code, const char* buffer, const std::atomic<bool>* cancel, const TlsOptions& tls) {
  if (code == CURLE_ABORTED_BY_CALLBACK && cancel != nullptr && cancel->load()) return "stopped (gpuwatch is shutting down)";
  std::string text = curl_easy_strerror(code);
  if (buffer[0] != '\0' && text != buffer) text += " (" + std::string(buffer) + ")";
  // curl says "unable to set private key file: 'client.key' type PEM" for a wrong passphrase.
  if (code == CURLE_SSL_CERTPROBLEM && !tls.key_file.empty() && std::strstr(buffer, "private key") != nullptr) {
    return "the client key '" + tls.key_file + "' could not be " +
           (tls.key_password.empty() ? std::string("read")
                                     : std::string("decrypted or read with the given key_password_file (wrong passphrase?)")) +
           ": " + text;
  }
  return text;
}

// The calling thread's handle for HTTP(S) requests. curl keeps a handle's open connections and
// TLS sessions across curl_easy_reset, so a thread that posts again and again (remote-write's push
// thread, every second) reuses one connection instead of a TCP (and TLS) handshake per request;
// curl checks a kept connection before it reuses it and opens a new one when the receiver closed
// it. The module is never unloaded, so the handle lives until its thread ends.
class ThreadHandle {
 public:
  ThreadHandle() {
    thread_local Easy handle(nullptr, curl_easy_cleanup);
    if (!handle) handle.reset(curl_easy_init());
    curl_ = handle.get();
  }
  // Every option goes back to its default, so no pointer into this request's stack stays set.
  ~ThreadHandle() {
    if (curl_ != nullptr) curl_easy_reset(curl_);
  }
  ThreadHandle(const ThreadHandle&) = delete;
  ThreadHandle& operator=(const ThreadHandle&) = delete;
  CURL* get() const { return curl_; }
  explicit operator bool() const { return curl_ != nullptr; }

 private:
  CURL* curl_ = nullptr;
};

SendResult post(const HttpRequest& request, const std::atomic<bool>* cancel) {
  global_init();
  SendResult result;
  ThreadHandle curl;
  if (!curl) {
    result.error = "cannot start an HTTP request (curl_easy_init failed)";
    return result;
  }
  Transfer transfer;
  transfer.cancel = cancel;
  char error_buffer[CURL_ERROR_SIZE] = {};
  common_options(curl.get(), transfer, request.tls, request.timeout, error_buffer);
  curl_easy_setopt(curl.get(), CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_POST, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "gpuwatch");
  Slist headers(nullptr, curl_slist_free_all);
  curl_slist* list = nullptr;
  for (const auto& header : request.headers) list = curl_slist_append(list, header.c_str());
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
  headers.reset(list);
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (!request.username.empty()) {
    curl_easy_setopt(curl.get(), CURLOPT_USERNAME, request.username.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_PASSWORD, request.password.c_str());
  }
  const CURLcode code = curl_easy_perform(curl.get());
  result.answer = transfer.answer;
  if (code != CURLE_OK) {
    result.error = error_text(code, error_buffer, cancel, request.tls);
    result.maybe_delivered = request_went_out(curl.get(), code, request.body.size());
    return result;
  }
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  result.status = status;
  result.accepted = status >= 200 && status < 300;
  if (!result.accepted) {
    result.error = "HTTP " + std::to_string(status);
    // A redirect (not followed: the URL is wrong) or a 4xx other than 408/429 will not change on retry.
    result.permanent = (status >= 300 && status < 500) && status != 408 && status != 429;
  }
  return result;
}

SendResult submit(const SmtpRequest& request, const std::atomic<bool>* cancel) {
  global_init();
  SendResult result;
  Easy curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    result.error = "cannot start an SMTP session (curl_easy_init failed)";
    return result;
  }
  Transfer transfer;
  transfer.cancel = cancel;
  transfer.upload = &request.message;
  char error_buffer[CURL_ERROR_SIZE] = {};
  common_options(curl.get(), transfer, request.tls, request.timeout, error_buffer);
  curl_easy_setopt(curl.get(), CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  if (request.require_starttls) curl_easy_setopt(curl.get(), CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  if (!request.username.empty()) {
    curl_easy_setopt(curl.get(), CURLOPT_USERNAME, request.username.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_PASSWORD, request.password.c_str());
  }
  const std::string from = "<" + request.from + ">";
  curl_easy_setopt(curl.get(), CURLOPT_MAIL_FROM, from.c_str());
  Slist recipients(nullptr, curl_slist_free_all);
  curl_slist* list = nullptr;
  for (const auto& address : request.to) list = curl_slist_append(list, ("<" + address + ">").c_str());
  recipients.reset(list);
  curl_easy_setopt(curl.get(), CURLOPT_MAIL_RCPT, recipients.get());
  curl_easy_setopt(curl.get(), CURLOPT_READFUNCTION, read_callback);
  curl_easy_setopt(curl.get(), CURLOPT_READDATA, &transfer);
  curl_easy_setopt(curl.get(), CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.message.size()));
  const CURLcode code = curl_easy_perform(curl.get());
  long reply = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply);
  if (reply != 0) result.status = reply;
  if (code != CURLE_OK) {
    result.error = error_text(code, error_buffer, cancel, request.tls);
    result.maybe_delivered = request_went_out(curl.get(), code, request.message.size());
    // 5xx replies (bad recipient, authentication refused) will not change on retry.
    result.permanent = code == CURLE_LOGIN_DENIED || (reply >= 500 && reply < 600 && !result.maybe_delivered);
    return result;
  }
  result.accepted = true;
  return result;
}

// Nothing may unwind across the module boundary (std::bad_alloc is all that could).
template <typename Request>
void send_caught(SendResult (*send)(const Request&, const std::atomic<bool>*), const Request& request,
                 const std::atomic<bool>* cancel, SendResult& out) {
  try {
    out = send(request, cancel);
  } catch (const std::exception& e) {
    out = SendResult{};
    out.error = e.what();
  }
}

}  // namespace
}  // namespace gpuwatch::notify

GPUWATCH_MODULE_EXPORT const char* gpuwatch_module_version() { return GPUWATCH_MODULE_VERSION; }

GPUWATCH_MODULE_EXPORT void gpuwatch_curl_http_post_v3(const gpuwatch::notify::HttpRequest& request,
                                                    const std::atomic<bool>* cancel,
                                                    gpuwatch::notify::SendResult& out) {
  gpuwatch::notify::send_caught(gpuwatch::notify::post, request, cancel, out);
}

GPUWATCH_MODULE_EXPORT void gpuwatch_curl_smtp_send_v3(const gpuwatch::notify::SmtpRequest& request,
                                                    const std::atomic<bool>* cancel,
                                                    gpuwatch::notify::SendResult& out) {
  gpuwatch::notify::send_caught(gpuwatch::notify::submit, request, cancel, out);
}
