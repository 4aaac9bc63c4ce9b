#include "recorder/log_writer.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuwatch::recorder {
namespace log_writer_test {  // this test file's helpers (unity builds: no clash with another file's)

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
    device.get(FieldId::PowerDraw) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
    snapshot.devices.push_back(device);
  }
  snapshot.device_count = gpus;
  return snapshot;
}

const std::vector<FieldId> kFields = {FieldId::Index, FieldId::UtilizationGpu, FieldId::PowerDraw};

// A write that fails part way (as on a full disk) leaves no partial row behind. The file
// size limit (RLIMIT_FSIZE, EFBIG after a short write) stands in for ENOSPC here; the
// real full disk is tests/e2e/test_record_full_disk.py.
TEST(RecordLog, AWriteThatFailsPartWayIsCutBackWhole) {
  TempDir dir;
  const std::string path = dir.path + "/gpu.csv";
  auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields);
  ASSERT_TRUE(log) << log.error().message;
  ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 2)));
  const std::string before = read_file(path);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* saved_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = before.size() + 20;  // room for part of the next sample only
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  auto failed = (*log)->append(sample(1'700'000'001'000, 8));
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("cannot write"), std::string::npos) << failed.error().message;
  EXPECT_EQ(read_file(path), before);  // cut back to the last whole sample
  ASSERT_TRUE((*log)->append(sample(1'700'000'002'000, 1)));  // and writing goes on after it
  const std::string after = read_file(path);
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_EQ(after.back(), '\n');
}

TEST(RecordLog, CsvHasOneHeaderAndOneRowPerGpuPerSample) {
  TempDir dir;
  std::string path = dir.path + "/logs/gpu.csv";  // the folder is created
  {
    auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields);
    ASSERT_TRUE(log) << log.error().message;
    ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 2)));
  }
  {
    auto again = SampleLog::open(path, history::HistoryFormat::Csv, kFields);  // appends, no second header
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
  { ASSERT_TRUE(SampleLog::open(path, history::HistoryFormat::Csv, kFields)); }
  auto other = SampleLog::open(path, history::HistoryFormat::Csv, {FieldId::Index});
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("header differs"), std::string::npos);
}

TEST(RecordLog, ATornLastRowIsCutOnOpen) {
  TempDir dir;
  std::string path = dir.path + "/gpu.csv";
  {
    auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields);
    ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 1)));
  }
  std::string complete = read_file(path);
  std::ofstream(path, std::ios::app) << "2023-11-14T22:13:21.000+00:00, 0, 5";  // a crash mid-row
  {
    auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields);
    ASSERT_TRUE(log) << log.error().message;
  }
  EXPECT_EQ(read_file(path), complete);
}

TEST(RecordLog, JsonlLinesCarryTimeAndNull) {
  TempDir dir;
  std::string path = dir.path + "/gpu.jsonl";
  auto log = SampleLog::open(path, history::HistoryFormat::Jsonl, kFields);
  ASSERT_TRUE(log);
  ASSERT_TRUE((*log)->append(sample(1'700'000'000'000, 2)));
  std::string text = read_file(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(text.rfind("{\"time\":\"2023-11-1", 0), 0U) << text;
  EXPECT_NE(text.find("\"power_draw_w\":null"), std::string::npos);
}

}  // namespace log_writer_test
}  // namespace gpuwatch::recorder
