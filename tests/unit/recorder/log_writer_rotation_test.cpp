// `record --csv/--jsonl` rotation: --rotate-size, --rotate-age, --keep. Sample times
// are explicit (the age is measured on the samples' own timestamps).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "recorder/log_writer.hpp"
#include "recorder/size.hpp"

namespace gpuwatch::recorder {
namespace log_writer_rotation_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;
using core::FieldId;
using core::FieldReading;

struct RotationDir {
  RotationDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuwatch-rotate-XXXXXX").string();
    path = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~RotationDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string& name) const { return (fs::path(path) / name).string(); }
  std::string path;
};

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  EXPECT_TRUE(all.empty() || all.back() == '\n') << path << " ends in a partial row";
  std::vector<std::string> lines;
  std::string line;
  std::istringstream split(all);
  while (std::getline(split, line)) lines.push_back(line);
  return lines;
}

core::Snapshot sample_at(std::int64_t ms) {
  core::Snapshot snapshot;
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot device;
    device.index = i;
    device.get(FieldId::Index) = FieldReading::of(std::int64_t{i});
    device.get(FieldId::UtilizationGpu) = FieldReading::of(0.5);
    snapshot.devices.push_back(device);
  }
  snapshot.device_count = 2;
  return snapshot;
}

const std::vector<core::FieldId> kFields = {FieldId::Index, FieldId::UtilizationGpu};

TEST(RecordLogRotation, BySizeKeepsNFilesEachWithAHeaderAndWholeRows) {
  RotationDir dir;
  const std::string path = dir.file("gpu.csv");
  RotateOptions rotate;
  rotate.max_bytes = 400;
  rotate.keep = 2;
  auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields, rotate);
  ASSERT_TRUE(log) << log.error().message;
  for (int i = 0; i < 40; ++i) ASSERT_TRUE((*log)->append(sample_at(1'700'000'000'000 + i * 1000)));

  EXPECT_TRUE(fs::exists(path));
  EXPECT_TRUE(fs::exists(path + ".1"));
  EXPECT_TRUE(fs::exists(path + ".2"));
  EXPECT_FALSE(fs::exists(path + ".3"));
  const std::string header = lines_of(path).at(0);
  EXPECT_EQ(header.rfind("time, index, utilization.gpu [%]", 0), 0U) << header;
  std::size_t rows = 0;
  for (const auto& name : {path, path + ".1", path + ".2"}) {
    EXPECT_LE(fs::file_size(name), 400U) << name;
    auto lines = lines_of(name);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], header) << name;
    EXPECT_EQ((lines.size() - 1) % 2, 0U) << name << ": a sample's two rows are never split across files";
    rows += lines.size() - 1;
  }
  EXPECT_LT(rows, 80U);  // the oldest files were deleted
  // The newest rows are in the current file, the older ones in .1.
  EXPECT_LT(lines_of(path + ".1").back(), lines_of(path).back());
}

TEST(RecordLogRotation, ByAgeOfTheFirstRow) {
  RotationDir dir;
  const std::string path = dir.file("gpu.jsonl");
  RotateOptions rotate;
  rotate.max_age = std::chrono::minutes(1);
  rotate.keep = 5;
  auto log = SampleLog::open(path, history::HistoryFormat::Jsonl, kFields, rotate);
  ASSERT_TRUE(log) << log.error().message;
  const std::int64_t t0 = 1'700'000'000'000;
  for (int i = 0; i < 150; i += 10) ASSERT_TRUE((*log)->append(sample_at(t0 + i * 1000)));  // 0 .. 140 s
  // Files start at 0 s, 60 s, 120 s: two rotations.
  EXPECT_EQ(lines_of(path + ".2").size(), 12U);  // 0..50 s: 6 samples x 2 GPUs
  EXPECT_EQ(lines_of(path + ".1").size(), 12U);  // 60..110 s
  EXPECT_EQ(lines_of(path).size(), 6U);          // 120..140 s
  EXPECT_FALSE(fs::exists(path + ".3"));
}

TEST(RecordLogRotation, KeepZeroDeletesTheOldFile) {
  RotationDir dir;
  const std::string path = dir.file("gpu.csv");
  RotateOptions rotate;
  rotate.max_bytes = 200;
  rotate.keep = 0;
  auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields, rotate);
  ASSERT_TRUE(log);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE((*log)->append(sample_at(1'700'000'000'000 + i * 1000)));
  EXPECT_FALSE(fs::exists(path + ".1"));
  EXPECT_LE(fs::file_size(path), 200U);
  EXPECT_GE(lines_of(path).size(), 3U);
}

TEST(RecordLogRotation, AFileWithOnlyItsHeaderIsNeverRotated) {
  RotationDir dir;
  const std::string path = dir.file("gpu.csv");
  RotateOptions rotate;
  rotate.max_bytes = 10;  // smaller than one sample: each file holds exactly one sample
  rotate.keep = 3;
  auto log = SampleLog::open(path, history::HistoryFormat::Csv, kFields, rotate);
  ASSERT_TRUE(log);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*log)->append(sample_at(1'700'000'000'000 + i * 1000)));
  EXPECT_EQ(lines_of(path).size(), 3U);
  EXPECT_EQ(lines_of(path + ".1").size(), 3U);
  EXPECT_EQ(lines_of(path + ".2").size(), 3U);
}

TEST(RecordSize, ParsesBinaryUnits) {
  EXPECT_EQ(*parse_byte_size("4096"), 4096);
  EXPECT_EQ(*parse_byte_size("500k"), 500 * 1024);
  EXPECT_EQ(*parse_byte_size("100M"), 100LL << 20);
  EXPECT_EQ(*parse_byte_size("1.5G"), 3LL << 29);
  EXPECT_EQ(*parse_byte_size("2GiB"), 2LL << 30);
  EXPECT_EQ(*parse_byte_size("10B"), 10);
  EXPECT_FALSE(parse_byte_size("0"));
  EXPECT_FALSE(parse_byte_size("ten"));
  EXPECT_FALSE(parse_byte_size("5X"));
}

}  // namespace log_writer_rotation_test
}  // namespace gpuwatch::recorder
