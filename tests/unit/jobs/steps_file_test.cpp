#include "jobs/steps_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::jobs {
namespace {

TEST(StepsFile, ParsesTheContractAndCountsBadLines) {
  auto steps = parse_steps(
      "{\"step\": 1, \"time\": 1700000000.5, \"data_wait_s\": 0.4, \"compute_s\": 0.6, \"loss\": 2.5}\n"
      "\n"
      "{\"step\": 2, \"time\": 1700000001.5, \"data_wait_s\": 0.4, \"compute_s\": 0.6, \"loss\": null, "
      "\"allocated_bytes\": 1024, \"reserved_bytes\": 2048, \"num_alloc_retries\": 0, \"num_ooms\": 0}\n"
      "not json\n"
      "{\"step\": \"3\", \"time\": 1, \"data_wait_s\": 0, \"compute_s\": 1}\n"
      "{\"step\": 4, \"time\": 1, \"data_wait_s\": -1, \"compute_s\": 1}\n"
      "[1, 2]\n"
      "{\"step\": 5, \"time\": 2, \"data_wait_s\": 0.1, \"compute_s\": 0.9}");  // last line without newline
  ASSERT_EQ(steps.rows.size(), 3u);
  EXPECT_EQ(steps.malformed, 4u);
  EXPECT_EQ(steps.rows[0].loss, 2.5);
  EXPECT_EQ(steps.rows[1].loss, std::nullopt);
  EXPECT_EQ(steps.rows[1].reserved_bytes, 2048);
  EXPECT_EQ(steps.rows[0].allocated_bytes, std::nullopt);
  EXPECT_EQ(steps.rows[2].step, 5);
}

TEST(StepsFile, DataWaitShareIsWaitOverWaitPlusCompute) {
  std::vector<StepRow> rows(2);
  rows[0].data_wait_s = 0.3;
  rows[0].compute_s = 0.7;
  rows[1].data_wait_s = 0.5;
  rows[1].compute_s = 0.5;
  EXPECT_NEAR(*data_wait_share(rows), 0.4, 1e-12);
  EXPECT_EQ(data_wait_share({}), std::nullopt);
  EXPECT_EQ(data_wait_share(std::vector<StepRow>(3)), std::nullopt);  // all zero: no share
}

TEST(StepsFile, SamplesPerStepAndTheStepsTimeRange) {
  auto steps = parse_steps(
      "{\"step\": 1, \"time\": 100.0, \"data_wait_s\": 0.25, \"compute_s\": 0.75, \"samples\": 64}\n"
      "{\"step\": 2, \"time\": 101.0, \"data_wait_s\": 0.25, \"compute_s\": 0.75}\n"
      "{\"step\": 3, \"time\": 102.0, \"data_wait_s\": 0.25, \"compute_s\": 0.75, \"samples\": 6.5}\n");
  ASSERT_EQ(steps.rows.size(), 2u);
  EXPECT_EQ(steps.malformed, 1u);  // samples must be an integer
  EXPECT_EQ(steps.rows[0].samples, 64);
  EXPECT_EQ(steps.rows[1].samples, std::nullopt);
  auto range = steps_time_range(steps.rows);
  ASSERT_TRUE(range);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(range->first.time_since_epoch()).count(), 99'000);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(range->second.time_since_epoch()).count(), 101'000);
  EXPECT_EQ(steps_time_range({}), std::nullopt);
}

TEST(StepsFile, MeasuredStarvationUsesTheDiagnoseLevels) {
  EXPECT_EQ(measured_starvation(0.01, 10, {0}, {"GPU-0"}), std::nullopt);
  auto info = measured_starvation(0.10, 10, {0}, {"GPU-0"});
  ASSERT_TRUE(info);
  EXPECT_EQ(info->severity, diagnose::Severity::Info);
  auto warn = measured_starvation(0.41, 200, {2, 3}, {"GPU-2", "GPU-3"});
  ASSERT_TRUE(warn);
  EXPECT_EQ(warn->kind, "input_starved");
  EXPECT_EQ(warn->severity, diagnose::Severity::Warning);
  EXPECT_EQ(warn->summary, "measured from inside the job: 41 % of step time waiting for data");
  EXPECT_EQ(warn->gpus, (std::vector<unsigned>{2, 3}));
  ASSERT_FALSE(warn->advice.empty());
  EXPECT_NE(warn->advice.front().find("num_workers"), std::string::npos);
}

class StepsFileOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuwatch-steps-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(StepsFileOnDisk, AnAbsentFileIsNoSteps) {
  auto steps = read_steps_file(dir_ + "/none.jsonl");
  ASSERT_TRUE(steps);
  EXPECT_TRUE(steps->rows.empty());
}

TEST_F(StepsFileOnDisk, ReadsARegularFile) {
  std::ofstream(dir_ + "/s.jsonl") << "{\"step\": 1, \"time\": 1, \"data_wait_s\": 1, \"compute_s\": 1, \"loss\": null}\n";
  auto steps = read_steps_file(dir_ + "/s.jsonl");
  ASSERT_TRUE(steps);
  EXPECT_EQ(steps->rows.size(), 1u);
}

TEST_F(StepsFileOnDisk, RefusesAFifoAndAFileOverTheCap) {
  ASSERT_EQ(mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  auto fifo = read_steps_file(dir_ + "/fifo");
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos);
  std::ofstream(dir_ + "/big.jsonl") << std::string(200, 'x');
  auto big = read_steps_file(dir_ + "/big.jsonl", 100);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("more than the 100"), std::string::npos);
}

TEST_F(StepsFileOnDisk, DoesNotFollowASymlink) {
  std::ofstream(dir_ + "/real.jsonl") << "{}\n";
  std::filesystem::create_symlink(dir_ + "/real.jsonl", dir_ + "/link.jsonl");
  EXPECT_FALSE(read_steps_file(dir_ + "/link.jsonl"));
}

}  // namespace
}  // namespace gpuwatch::jobs
