#include "core/field_table.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace gpuwatch::core {
namespace {

std::vector<std::string> split_header(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    auto pos = line.find(", ", start);
    out.push_back(line.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 2;
  }
  return out;
}

TEST(FieldTable, IdsMatchTheirRows) {
  auto table = field_table();
  ASSERT_EQ(table.size(), kFieldCount);
  for (std::size_t i = 0; i < table.size(); ++i) EXPECT_EQ(index_of(table[i].id), i) << table[i].name;
}

TEST(FieldTable, NamesAndAliasesAreUnique) {
  std::set<std::string> seen;
  for (const auto& f : field_table()) {
    EXPECT_TRUE(seen.insert(std::string(f.name)).second) << f.name;
    for (auto a : f.alias_list()) EXPECT_TRUE(seen.insert(std::string(a)).second) << a;
  }
}

TEST(FieldTable, JsonKeysAreUniqueSnakeCaseWithUnitSuffix) {
  std::set<std::string> keys;
  const std::regex snake("^[a-z][a-z0-9_]*$");
  for (const auto& f : field_table()) {
    std::string key(f.json_key);
    EXPECT_TRUE(keys.insert(key).second) << key;
    EXPECT_TRUE(std::regex_match(key, snake)) << key;
    auto ends = [&](const char* s) { return key.size() >= std::strlen(s) && key.rfind(s) == key.size() - std::strlen(s); };
    switch (f.unit) {
      case Unit::Bytes: EXPECT_TRUE(ends("_bytes")) << key; break;
      case Unit::Hertz: EXPECT_TRUE(ends("_hz")) << key; break;
      case Unit::Watts: EXPECT_TRUE(ends("_w") || ends("_w_per_s")) << key; break;
      case Unit::Celsius: EXPECT_TRUE(ends("_c")) << key; break;
      case Unit::Ratio: EXPECT_TRUE(ends("_ratio")) << key; break;
      case Unit::Seconds: EXPECT_TRUE(ends("_s")) << key; break;
      case Unit::Joules: EXPECT_TRUE(ends("_j")) << key; break;
      case Unit::BytesPerSecond: EXPECT_TRUE(ends("_bytes_per_s")) << key; break;
      case Unit::None: break;
    }
  }
}

TEST(FieldTable, EveryFieldHasADescriptionAndClaimedFieldsASource) {
  for (const auto& f : field_table()) {
    EXPECT_FALSE(f.description.empty()) << f.name;
    EXPECT_EQ(f.claimed, f.source != Source::None) << f.name;
  }
}

// Every header of every real capture is a field, with nvidia-smi's exact header text.
TEST(FieldTable, CoversEveryCaptureHeader) {
  std::filesystem::path dir = std::filesystem::path(GPUWATCH_REALDATA_DIR) / "nvidia-smi" / "extracted";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no captures at " << dir;
  std::size_t files = 0, headers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.find("__query-gpu.csv") == std::string::npos) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    std::getline(in, line);
    for (const auto& header : split_header(line)) {
      ++headers;
      std::string query = header.substr(0, header.find(" ["));
      auto id = find_field(query);
      ASSERT_TRUE(id.has_value()) << query << " in " << name;
      EXPECT_EQ(field_info(*id).csv_header(), header) << name;
    }
  }
  EXPECT_GE(files, 16u);
  EXPECT_GT(headers, 3000u);
}

// A field is a gpuwatch extension (its description says so) exactly when no real
// nvidia-smi knows its name: neither its --help-query-gpu nor a captured CSV header.
TEST(FieldTable, ExtensionsAreExactlyTheNamesNvidiaSmiLacks) {
  std::filesystem::path root = std::filesystem::path(GPUWATCH_REALDATA_DIR) / "nvidia-smi";
  if (!std::filesystem::exists(root / "nvidia_gpu_exporter-captures")) GTEST_SKIP() << "no captures at " << root;
  std::set<std::string> known;
  for (const auto& entry : std::filesystem::directory_iterator(root / "nvidia_gpu_exporter-captures")) {
    std::ifstream in(entry.path());
    std::string line;
    bool in_help = false;
    while (std::getline(in, line)) {
      if (line.rfind("# capabilities :: ", 0) == 0) in_help = line == "# capabilities :: help-query-gpu";
      if (in_help && line.size() > 2 && line[0] == '"') known.insert(line.substr(1, line.find('"', 1) - 1));
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(root / "extracted")) {
    if (entry.path().filename().string().find("__query-gpu.csv") == std::string::npos) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::getline(in, line);
    for (const auto& header : split_header(line)) known.insert(header.substr(0, header.find(" [")));
  }
  ASSERT_GT(known.size(), 200u);
  std::size_t extensions = 0;
  for (const auto& f : field_table()) {
    bool marked = f.description.rfind("gpuwatch extension: ", 0) == 0;
    extensions += marked;
    EXPECT_EQ(marked, known.count(std::string(f.name)) == 0) << f.name;
  }
  EXPECT_GE(extensions, 4u);  // bar1.used, pcie.replay_counter, pcie.rx/tx_throughput at least
  EXPECT_EQ(field_info(FieldId::Bar1Used).description.rfind("gpuwatch extension", 0), 0u);
}

TEST(FieldTable, FindsAliasesAndBothThrottleSpellings) {
  EXPECT_EQ(find_field("gpu_name"), FieldId::Name);
  EXPECT_EQ(find_field("gpu_bus_id"), FieldId::PciBusId);
  EXPECT_EQ(find_field("clocks_throttle_reasons.active"), FieldId::ClocksEventReasonsActive);
  EXPECT_EQ(find_field("clocks_event_reasons.active"), FieldId::ClocksEventReasonsActive);
  EXPECT_EQ(find_field("clocks.sm"), FieldId::ClocksCurrentSm);
  EXPECT_EQ(find_field("Memory.Used"), FieldId::MemoryUsed);  // nvidia-smi ignores case
  EXPECT_FALSE(find_field("memory.usedd").has_value());
}

TEST(FieldTable, HeadersCarryTheDisplayUnit) {
  EXPECT_EQ(field_info(FieldId::MemoryUsed).csv_header(), "memory.used [MiB]");
  EXPECT_EQ(field_info(FieldId::PowerDraw).csv_header(), "power.draw [W]");
  EXPECT_EQ(field_info(FieldId::TemperatureGpu).csv_header(), "temperature.gpu");
  EXPECT_EQ(field_info(FieldId::ClocksEventReasonsCountersSwPowerCap).csv_header(),
            "clocks_event_reasons_counters.sw_power_cap [us]");
}

TEST(AppFieldTable, NamesAliasesAndHeaders) {
  EXPECT_EQ(find_app_field("used_memory"), AppFieldId::UsedGpuMemory);
  EXPECT_EQ(find_app_field("name"), AppFieldId::ProcessName);
  EXPECT_EQ(app_field_table()[static_cast<std::size_t>(AppFieldId::UsedGpuMemory)].csv_header(), "used_gpu_memory [MiB]");
  for (std::size_t i = 0; i < app_field_table().size(); ++i) EXPECT_EQ(static_cast<std::size_t>(app_field_table()[i].id), i);
}

}  // namespace
}  // namespace gpuwatch::core
