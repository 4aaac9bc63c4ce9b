#include "exporter/http/response_head.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace gpuwatch::exporter::http {
namespace {

TEST(ResponseHead, StatusHeadersTypeAndLength) {
  HttpResponse response;
  response.set_header("Cache-Control", "no-store");
  response.set_content("hello", "text/plain");
  std::string head = response_head(response, true, {{"X-Frame-Options", "deny"}});
  EXPECT_EQ(head,
            "HTTP/1.1 200 OK\r\nX-Frame-Options: deny\r\nCache-Control: no-store\r\n"
            "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n");
}

TEST(ResponseHead, CloseWhenNotKeptAliveOrAskedFor) {
  HttpResponse response;
  response.status = 404;
  response.set_content("not found\n", "text/plain");
  EXPECT_NE(response_head(response, false, {}).find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_EQ(response_head(response, true, {}).find("Connection"), std::string::npos);
  response.set_header("Connection", "close");
  EXPECT_TRUE(asks_to_close(response));
  const std::string head = response_head(response, true, {});
  EXPECT_EQ(head.find("Connection: close"), head.rfind("Connection: close"));  // once
  EXPECT_EQ(head.substr(0, 23), "HTTP/1.1 404 Not Found\r");
}

TEST(ResponseHead, SharedBodyStreamsAnd304) {
  HttpResponse shared;
  shared.set_shared_content(std::make_shared<const std::string>("0123456789"), "text/plain");
  EXPECT_NE(response_head(shared, true, {}).find("Content-Length: 10\r\n"), std::string::npos);
  EXPECT_EQ(shared.content(), "0123456789");

  struct Never : StreamSource {
    std::optional<std::string> poll(std::chrono::steady_clock::time_point) override { return std::nullopt; }
  };
  HttpResponse stream;
  stream.set_stream(std::make_shared<Never>(), "text/event-stream");
  const std::string head = response_head(stream, false, {});
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_EQ(head.find("Content-Length"), std::string::npos);

  HttpResponse not_modified;
  not_modified.status = 304;
  EXPECT_EQ(response_head(not_modified, true, {}), "HTTP/1.1 304 Not Modified\r\n\r\n");
}

TEST(ResponseHead, ChunkFraming) {
  EXPECT_EQ(chunk("retry: 2000\n\n"), "d\r\nretry: 2000\n\n\r\n");
  EXPECT_EQ(chunk(std::string(300, 'x')).substr(0, 5), "12c\r\n");
  EXPECT_EQ(reason_phrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(reason_phrase(999), "Unknown");
}

}  // namespace
}  // namespace gpuwatch::exporter::http
