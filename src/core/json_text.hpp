#pragma once
// Every JSON text gpuwatch produces goes through json_text (issue 16): a GPU name, process
// name or command line is whatever bytes the driver or /proc gave, and nlohmann::json throws
// on invalid UTF-8 at dump time. Here invalid bytes become U+FFFD and the rest is kept, so
// one odd process never breaks `status --json`, `record --jsonl`, `history --format jsonl`,
// `report --format json` or the /api/v1/ bodies. Header-only: works for json and ordered_json.
#include <string>

namespace gpuwatch::core {

// JSON.dump(INDENT) with invalid UTF-8 replaced by U+FFFD (never throws for it).
template <class Json>
std::string json_text(const Json& json, int indent = -1) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gpuwatch::core
