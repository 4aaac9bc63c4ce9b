#include "cli/record_log.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuwatch::cli {
namespace {

namespace fs = std::filesystem;
using core::FieldId;
using core::FieldReading;

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuwatch-log-XXXXXX").string();
    path = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string path;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

core::Snapshot sample(std::int64_t ms, unsigned gpus) {
  core::Snapshot snapshot;
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  for (unsigned i = 0; i < gpus; ++i) {
    core::DeviceSnapshot device;
    device.index = i;
    device.get(FieldId::Index) = FieldReading::of(std::int64_t{i});
    device.get(FieldId::UtilizationGpu) = FieldReading::of(0.5);
    device.get(FieldId::PowerDraw) = FieldReading::absent(core::FieldStatus::NotSupported, 3);
    snapshot.devices.push_back(device);
  }
  snapshot.device_count = gpus;
  return snapshot;
}

const std::vector<FieldId> kFields = {FieldId::Index, FieldId::UtilizationGpu, FieldId::PowerDraw};

TEST(RecordLog, CsvHasOneHeaderAndOneRowPerGpuPerSample) {
  TempDir dir;
  std::string path = dir.path + "/logs/gpu.csv";  // the folder is created
  {
    auto log = SampleLog::open(path, HistoryFormat::Csv, kFields);
    ASSERT_TRUE(log) << log.error().message;
    ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 2)));
  }
  {
    auto again = SampleLog::open(path, HistoryFormat::Csv, kFields);  // appends, no second header
    ASSERT_TRUE(again) << again.error().message;
    ASSERT_TRUE((*again)->append(sample(1'700'000'001'000, 2)));
  }
  std::istringstream lines(read_file(path));
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 5U);
  EXPECT_EQ(rows[0], "time, index, utilization.gpu [%], power.draw [W]");
  EXPECT_NE(rows[1].find(", 0, 50 %, [N/A]"), std::string::npos) << rows[1];
  EXPECT_NE(rows[4].find(", 1, 50 %, [N/A]"), std::string::npos) << rows[4];
}

TEST(RecordLog, AnotherHeaderIsRefused) {
  TempDir dir;
  std::string path = dir.path + "/gpu.csv";
  { ASSERT_TRUE(SampleLog::open(path, HistoryFormat::Csv, kFields)); }
  auto other = SampleLog::open(path, HistoryFormat::Csv, {FieldId::Index});
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("header differs"), std::string::npos);
}

TEST(RecordLog, ATornLastRowIsCutOnOpen) {
  TempDir dir;
  std::string path = dir.path + "/gpu.csv";
  {
    auto log = SampleLog::open(path, HistoryFormat::Csv, kFields);
    ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 1)));
  }
  std::string complete = read_file(path);
  std::ofstream(path, std::ios::app) << "2023-11-14T22:13:21.000+00:00, 0, 5";  // a crash mid-row
  {
    auto log = SampleLog::open(path, HistoryFormat::Csv, kFields);
    ASSERT_TRUE(log) << log.error().message;
  }
  EXPECT_EQ(read_file(path), complete);
}

TEST(RecordLog, JsonlLinesCarryTimeAndNull) {
  TempDir dir;
  std::string path = dir.path + "/gpu.jsonl";
  auto log = SampleLog::open(path, HistoryFormat::Jsonl, kFields);
  ASSERT_TRUE(log);
  ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 2)));
  std::string text = read_file(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(text.rfind("{\"time\":\"2023-11-1", 0), 0U) << text;
  EXPECT_NE(text.find("\"power_draw_w\":null"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::cli
