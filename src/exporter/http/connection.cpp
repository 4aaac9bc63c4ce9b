// One connection of the HTTP server, as a C++20 coroutine on the I/O thread (server_state.hpp):
// TLS handshake, then requests read one after the other (pipelined ones from the bytes already
// buffered, answered in order) under the header deadline and limits, each answered by a
// route (slow routes on the pool, uncached bcrypt on the BcryptPool) or refused with a 4xx
// (429/503 when a client's wrong passwords or the bcrypt queue are over their bounds); event streams
// are polled on a timer. Nothing here blocks the thread, and a connection holds no thread.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <unistd.h>

#include <array>
#include <chrono>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "exporter/http/auth_failure_limit.hpp"
#include "exporter/http/basic_auth.hpp"
#include "exporter/http/bcrypt_pool.hpp"
#include "exporter/http/request_target.hpp"
#include "exporter/http/response_head.hpp"
#include "exporter/http/server_state.hpp"

namespace gpuwatch::exporter::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using net::awaitable;
using Clock = std::chrono::steady_clock;
constexpr auto kNoThrow = net::as_tuple(net::use_awaitable);

// Asio's own SSL stream, not beast::ssl_stream: the latter's flat_stream write path lost the
// body of answers over 16 KiB (written in a second write_some after the head) here.
using TlsStream = net::ssl::stream<beast::tcp_stream>;

beast::tcp_stream& lowest(beast::tcp_stream& stream) { return stream; }
beast::tcp_stream& lowest(TlsStream& stream) { return stream.next_layer(); }

// Runs FN on the pool, then resumes the coroutine on its own executor (the I/O thread).
template <class Fn>
awaitable<void> run_on_pool(net::thread_pool& pool, Fn& fn) {
  co_await net::async_initiate<decltype(net::use_awaitable), void()>(
      [&pool, &fn](auto handler) {
        net::post(pool, [&fn, handler = std::move(handler)]() mutable {
          fn();
          auto executor = net::get_associated_executor(handler);
          net::post(executor, std::move(handler));
        });
      },
      net::use_awaitable);
}

// Runs a route, never letting an exception's text reach the client.
void call_route(const Route& route, const HttpRequest& request, HttpResponse& response) {
  try {
    route.handler(request, response);
  } catch (...) {
    response = HttpResponse{};
    response.status = 500;
    response.set_content("internal error\n", "text/plain; charset=utf-8");
  }
}

HttpResponse plain_answer(int status, const std::string& message) {
  HttpResponse response;
  response.status = status;
  response.set_content(message + "\n", "text/plain; charset=utf-8");
  return response;
}

// A bcrypt handed to the BcryptPool: its answer is posted back to the I/O thread, which
// wakes the waiting connection through TIMER (null once that connection stopped waiting).
// The pool's thread never owns the coroutine, so a hash that outlives the server frees
// nothing of it.
struct BcryptTicket {
  net::steady_timer* timer = nullptr;
  bool done = false;
  bool matched = false;
};

std::optional<Refusal> refusal_of(const beast::error_code& ec) {
  if (ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow) return Refusal::HeaderTooLarge;
  if (ec == bhttp::error::body_limit) return Refusal::BodyTooLarge;
  if (ec == bhttp::error::bad_version) return Refusal::UnsupportedVersion;
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message) return std::nullopt;  // the client left
  if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category())
    return Refusal::MalformedRequest;  // any other parse error (beast's http error category)
  return std::nullopt;                 // I/O: timeout, reset, closed
}

class Connection {
 public:
  Connection(ServerState& state) : state_(state) {}

  template <class Stream>
  awaitable<void> serve(Stream& stream, bool tls) {
    auto executor = co_await net::this_coro::executor;
    net::steady_timer timer(executor);
    timer_ = &timer;
    close_ = [&stream, &timer, this] {
      closed_ = true;
      timer.cancel();
      lowest(stream).close();
    };
    auto admitted = state_.connections->admit(Clock::now(), tls ? Phase::Handshake : Phase::Idle, close_);
    if (!admitted) {  // at the cap, and every connection is being answered: a fair 503
      co_await refuse_busy(stream, tls);
      co_return;
    }
    id_ = *admitted;
    {
      beast::error_code ec;
      const auto remote = lowest(stream).socket().remote_endpoint(ec);
      if (!ec) source_ = remote.address().to_string();
    }
    struct Forget {
      ServerState& state;
      ConnectionRegistry::Id id;
      ~Forget() { state.connections->remove(id); }
    } forget{state_, id_};
    if (tls) {
      lowest(stream).expires_after(state_.limits.header_deadline);
      if constexpr (std::is_same_v<Stream, TlsStream>) {
        auto [ec] = co_await stream.async_handshake(net::ssl::stream_base::server, kNoThrow);
        if (ec) co_return;
      }
    }
    beast::flat_buffer buffer;
    bool first = true;
    while (!closed_ && !state_.stopping) {
      // Between requests: wait for the next one's first byte (the header deadline covers the
      // first request from the connect on, kept-alive ones from their first byte).
      state_.connections->set_phase(id_, Phase::Idle, Clock::now());
      if (first && !tls) lowest(stream).expires_after(state_.limits.header_deadline);
      if (buffer.size() == 0) {
        if (!first) lowest(stream).expires_after(state_.limits.idle_timeout);
        auto [ec, n] = co_await stream.async_read_some(buffer.prepare(4096), kNoThrow);
        if (ec) co_return;
        buffer.commit(n);
      }
      state_.connections->set_phase(id_, Phase::Reading, Clock::now());
      if (!first) lowest(stream).expires_after(state_.limits.header_deadline);
      first = false;
      bhttp::request_parser<bhttp::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(state_.limits.max_header_bytes));
      parser.body_limit(state_.limits.max_body_bytes);
      auto [header_ec, header_n] = co_await bhttp::async_read_header(stream, buffer, parser, kNoThrow);
      if (header_ec) {
        if (auto refusal = refusal_of(header_ec)) co_await refuse(stream, *refusal);
        co_return;
      }
      const auto& message = parser.get();
      if (static_cast<std::size_t>(std::distance(message.begin(), message.end())) > state_.limits.max_header_count) {
        co_await refuse(stream, Refusal::TooManyHeaders);
        co_return;
      }
      if (!parser.is_done()) {  // a body (no route takes one; read within the limit and dropped)
        auto [body_ec, body_n] = co_await bhttp::async_read(stream, buffer, parser, kNoThrow);
        if (body_ec) {
          if (auto refusal = refusal_of(body_ec)) co_await refuse(stream, *refusal);
          co_return;
        }
      }
      if (message.version() != 10 && message.version() != 11) {
        co_await refuse(stream, Refusal::UnsupportedVersion);
        co_return;
      }
      state_.connections->set_phase(id_, Phase::Answering, Clock::now());
      lowest(stream).expires_never();
      auto target = parse_request_target(std::string_view(message.target().data(), message.target().size()));
      if (!target) {
        co_await refuse(stream, Refusal::BadTarget, target.error().message);
        co_return;
      }
      HttpRequest request;
      const auto method = message.method_string();
      request.method = std::string(method.data(), method.size());
      request.path = std::move(target->path);
      request.query = std::move(target->query);
      for (const auto& field : message) {
        const auto name = field.name_string();
        const auto value = field.value();
        request.headers.emplace_back(std::string(name.data(), name.size()), std::string(value.data(), value.size()));
      }
      const bool keep_alive = message.keep_alive();
      HttpResponse response;
      co_await answer(request, response);
      if (closed_) co_return;
      const bool head_only = request.method == "HEAD";
      if (response.stream && !head_only) {
        co_await stream_events(stream, response);
        co_return;
      }
      const bool keep = keep_alive && !response.stream && !asks_to_close(response) && !state_.stopping;
      std::string head = response_head(response, keep, state_.extra_headers);
      std::string_view body = head_only ? std::string_view() : response.content();
      lowest(stream).expires_after(state_.limits.write_timeout);
      std::array<net::const_buffer, 2> buffers{net::buffer(head), net::buffer(body.data(), body.size())};
      auto [write_ec, written] = co_await net::async_write(stream, buffers, kNoThrow);
      if (write_ec || !keep) break;
    }
    if (!closed_) co_await close_gracefully(stream);
  }

  // The bcrypt CHECK needs, on the BcryptPool: nullopt when its queue is full; false too when
  // the connection was closed meanwhile (closed_ tells).
  awaitable<std::optional<bool>> bcrypt_on_pool(const AuthCheck& check) {
    auto ticket = std::make_shared<BcryptTicket>();
    ticket->timer = timer_;
    struct StopWaiting {
      BcryptTicket& ticket;
      ~StopWaiting() { ticket.timer = nullptr; }
    } stop_waiting{*ticket};
    net::io_context* io = state_.io;
    const bool queued = state_.bcrypt->submit(check.password, check.hash, [ticket, io](bool matched) {
      net::post(*io, [ticket, matched] {
        ticket->done = true;
        ticket->matched = matched;
        if (ticket->timer != nullptr) ticket->timer->cancel();
      });
    });
    if (!queued) co_return std::nullopt;
    timer_->expires_at(Clock::time_point::max());
    co_await timer_->async_wait(kNoThrow);  // cancelled by the answer, or by close_ (stop, eviction)
    co_return ticket->done && ticket->matched;
  }

  // Authentication (every path, as exporter-toolkit does), routing, then the route.
  awaitable<void> answer(const HttpRequest& request, HttpResponse& response) {
    if (state_.auth) {
      AuthCheck check = state_.auth->prepare(request.header("Authorization"));
      bool allowed = check.verdict == AuthCheck::Verdict::Allowed;
      if (check.verdict == AuthCheck::Verdict::NeedsBcrypt) {  // ~0.25 s at cost 12: never on the I/O thread
        if (auto wait = state_.auth_failures->blocked_for(source_, Clock::now())) {
          response = plain_answer(429, "429 Too Many Requests: too many wrong passwords from this address; retry in " +
                                           std::to_string(wait->count()) + " s");
          response.set_header("Retry-After", std::to_string(wait->count()));
          co_return;
        }
        auto matched = co_await bcrypt_on_pool(check);
        if (closed_) co_return;
        if (!matched) {
          response = plain_answer(503, "503 Service Unavailable: too many password checks waiting; retry shortly");
          response.set_header("Retry-After", "1");
          co_return;
        }
        allowed = state_.auth->conclude(check, *matched);
        if (!allowed) state_.auth_failures->record_failure(source_, Clock::now());
      }
      if (!allowed) {
        response = plain_answer(401, "401 Unauthorized");
        response.set_header("WWW-Authenticate", std::string(kBasicAuthChallenge));
        co_return;
      }
    }
    auto match = state_.router->find(request.method, request.path);
    if (match.status == 404) {
      response = plain_answer(404, "not found");
      co_return;
    }
    if (match.status == 405) {
      response = plain_answer(405, "method not allowed (GET or HEAD)");
      response.set_header("Allow", "GET, HEAD");
      co_return;
    }
    if (match.route->speed == Speed::Slow) {
      auto run = [&] { call_route(*match.route, request, response); };
      co_await run_on_pool(*state_.pool, run);
    } else {
      call_route(*match.route, request, response);
    }
  }

  // An endless chunked answer: what the source has at each poll, until it ends, the client
  // stops taking it (write timeout), or stop().
  template <class Stream>
  awaitable<void> stream_events(Stream& stream, HttpResponse& response) {
    state_.connections->set_phase(id_, Phase::Streaming, Clock::now());
    std::string head = response_head(response, false, state_.extra_headers);
    lowest(stream).expires_after(state_.limits.write_timeout);
    auto [head_ec, head_n] = co_await net::async_write(stream, net::buffer(head), kNoThrow);
    if (head_ec) co_return;
    StreamSource& source = *response.stream;
    while (!closed_ && !state_.stopping) {
      auto text = source.poll(Clock::now());
      if (!text) {
        static const std::string last = "0\r\n\r\n";
        lowest(stream).expires_after(state_.limits.write_timeout);
        co_await net::async_write(stream, net::buffer(last), kNoThrow);
        break;
      }
      if (!text->empty()) {
        std::string framed = chunk(*text);
        lowest(stream).expires_after(state_.limits.write_timeout);
        auto [ec, n] = co_await net::async_write(stream, net::buffer(framed), kNoThrow);
        if (ec) co_return;
      }
      timer_->expires_after(source.poll_interval());
      auto [wait_ec] = co_await timer_->async_wait(kNoThrow);
      if (wait_ec) break;  // cancelled: stop() or eviction closed the connection
    }
    if (!closed_) lowest(stream).close();
  }

  // A request refused before any route: the status and a one-line reason, then close.
  template <class Stream>
  awaitable<void> refuse(Stream& stream, Refusal refusal, std::string_view detail = {}) {
    state_.connections->set_phase(id_, Phase::Answering, Clock::now());
    auto answer = refusal_answer(refusal, state_.limits, detail);
    co_await send_and_close(stream, plain_answer(answer.status, answer.message));
  }

  template <class Stream>
  awaitable<void> refuse_busy(Stream& stream, bool tls) {
    // Tracked (stop() closes it too) but never counted against the cap's evictions.
    auto tracked = state_.connections->track(Clock::now(), close_);
    struct Forget {
      ServerState& state;
      ConnectionRegistry::Id id;
      ~Forget() { state.connections->remove(id); }
    } forget{state_, tracked};
    lowest(stream).expires_after(std::chrono::seconds(2));
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      if (tls) {
        auto [ec] = co_await stream.async_handshake(net::ssl::stream_base::server, kNoThrow);
        if (ec) co_return;
      }
    }
    HttpResponse busy = plain_answer(503, "too many connections (limit " + std::to_string(state_.limits.max_connections) +
                                              "); retry shortly");
    busy.set_header("Retry-After", "1");
    co_await send_and_close(stream, busy);
  }

  template <class Stream>
  awaitable<void> send_and_close(Stream& stream, const HttpResponse& response) {
    std::string head = response_head(response, false, state_.extra_headers);
    std::string_view body = response.content();
    lowest(stream).expires_after(state_.limits.write_timeout);
    std::array<net::const_buffer, 2> buffers{net::buffer(head), net::buffer(body.data(), body.size())};
    auto [ec, n] = co_await net::async_write(stream, buffers, kNoThrow);
    if (ec || closed_) co_return;
    co_await close_gracefully(stream);
  }

  // Half-closes, then reads and drops what the client still sends (a refused upload) for a
  // short while, so the kernel does not reset the connection before the client read the answer.
  template <class Stream>
  awaitable<void> close_gracefully(Stream& stream) {
    beast::error_code ignored;
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      stream.socket().shutdown(net::ip::tcp::socket::shutdown_send, ignored);
      stream.expires_after(std::chrono::seconds(1));
      std::array<char, 16 * 1024> sink{};
      std::size_t drained = 0;
      while (!closed_ && drained < (std::size_t{64} << 20)) {
        auto [ec, n] = co_await stream.async_read_some(net::buffer(sink), kNoThrow);
        if (ec) break;
        drained += n;
      }
    }
    if (!closed_) lowest(stream).close();
  }

 private:
  ServerState& state_;
  ConnectionRegistry::Id id_ = 0;
  bool closed_ = false;
  net::steady_timer* timer_ = nullptr;
  std::function<void()> close_;
  std::string source_;  // the client's address: wrong passwords are counted per address
};

awaitable<void> serve_plain(ServerState& state, net::ip::tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  Connection connection(state);
  co_await connection.serve(stream, false);
}

awaitable<void> serve_tls(ServerState& state, net::ip::tcp::socket socket) {
  TlsStream stream(std::move(socket), *state.tls);
  Connection connection(state);
  co_await connection.serve(stream, true);
}

}  // namespace

void start_connection(ServerState& state, int native, bool ipv6) {
  net::ip::tcp::socket socket(*state.io);
  beast::error_code ec;
  socket.assign(ipv6 ? net::ip::tcp::v6() : net::ip::tcp::v4(), native, ec);
  if (ec) {
    ::close(native);
    return;
  }
  socket.set_option(net::ip::tcp::no_delay(true), ec);  // keep-alive scrapes would stall on Nagle + delayed ACK
  if (state.tls != nullptr) {
    net::co_spawn(*state.io, serve_tls(state, std::move(socket)), net::detached);
  } else {
    net::co_spawn(*state.io, serve_plain(state, std::move(socket)), net::detached);
  }
}

}  // namespace gpuwatch::exporter::http
