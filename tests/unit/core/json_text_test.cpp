// issue 16: invalid UTF-8 from the driver or /proc never breaks a JSON output.
#include "core/json_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpuwatch::core {
namespace {

TEST(JsonText, InvalidUtf8IsReplacedAndTheRestKept) {
  nlohmann::ordered_json j;
  j["name"] = std::string("NVIDIA \xff\xfe H100");
  j["command"] = std::string("python tr\xc3" "ain.py");  // a cut two-byte sequence
  j["ok"] = "Grüße";
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what every output did before
  const std::string text = json_text(j);
  auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["name"], "NVIDIA \xef\xbf\xbd\xef\xbf\xbd H100");  // U+FFFD each
  EXPECT_EQ(back["command"], "python tr\xef\xbf\xbd" "ain.py");
  EXPECT_EQ(back["ok"], "Grüße");
}

TEST(JsonText, IndentsLikeDump) {
  nlohmann::json j = {{"a", 1}};
  EXPECT_EQ(json_text(j, 2), j.dump(2));
  EXPECT_EQ(json_text(j), j.dump());
}

}  // namespace
}  // namespace gpuwatch::core
