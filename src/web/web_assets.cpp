#include "web/web_assets.hpp"

#include <algorithm>
#include <cctype>

namespace gpuwatch::web {
namespace {

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// TEXT with every case-insensitive "</TAG" written as "<\/TAG".
std::string escape_end_tag(std::string_view text, std::string_view tag) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 2 + tag.size() <= text.size() && text[i + 1] == '/' &&
        equal_ignoring_case(text.substr(i + 2, tag.size()), tag)) {
      out += '\\';  // "<\/script": the same string or regex in JavaScript, no end tag in HTML
    }
  }
  return out;
}

}  // namespace

std::optional<std::string_view> find_asset(std::string_view name) {
  for (const auto& file : embedded_assets()) {
    if (file.name == name) return file.content;
  }
  return std::nullopt;
}

std::string_view asset(std::string_view name) { return find_asset(name).value_or(std::string_view()); }

std::string_view uplot_version() { return GPUWATCH_UPLOT_VERSION; }

std::string inline_script(std::string_view code) {
  return "<script>\n" + escape_end_tag(code, "script") + "\n</script>\n";
}

std::string inline_style(std::string_view css) { return "<style>\n" + escape_end_tag(css, "style") + "\n</style>\n"; }

std::string script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace gpuwatch::web
