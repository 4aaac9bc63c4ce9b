#pragma once
// The bytes before a response's body (pure): status line, the route's headers, the web
// config's extra headers, Content-Type, Content-Length (or Transfer-Encoding: chunked for a
// stream) and Connection. And the framing of one chunk of a streamed body.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/http/message.hpp"

namespace gpuwatch::exporter::http {

// The reason phrase of STATUS ("Not Found"); "Unknown" for codes not listed.
std::string_view reason_phrase(int status);

// KEEP_ALIVE false adds "Connection: close". EXTRA: headers added to every response.
std::string response_head(const HttpResponse& response, bool keep_alive,
                          const std::vector<std::pair<std::string, std::string>>& extra);

// True when the route asked for the connection to close ("Connection: close").
bool asks_to_close(const HttpResponse& response);

// "<hex size>\r\n<data>\r\n"; the empty chunk "0\r\n\r\n" ends a chunked body.
std::string chunk(std::string_view data);

}  // namespace gpuwatch::exporter::http
