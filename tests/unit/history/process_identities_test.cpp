// The recorded command lines group the GPUs of one job (issue 23): two GPUs whose processes NVML
// names alike ("python") are one job until their command lines say they are two.
#include "history/process_identities.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "history/findings.hpp"
#include "store/history_writer.hpp"
#include "store/process_commands.hpp"
#include "unit/diagnose/sim_feed.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::history {
namespace process_identities_test {

using diagnose::testing::SimFeed;

// GPU 0 saturated, GPUs 1-2 half starved; every process named "python" (PIDs 4000, 4010, 4020).
constexpr const char* kTwoGpus = R"(name: t
gpus:
  - model: A100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python train.py", user: ken, memory: 70000}]
  - model: A100 SXM 80GB
    count: 2
    phases: [{kind: dataloader_starvation, duration: 1h, intensity: 0.5}]
    processes: [{command: "python serve.py", user: ken, memory: 24000}]
)";

class ProcessIdentitiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::HistoryDatabase::open(dir_.file("h.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
    auto feed = SimFeed::yaml(kTwoGpus);
    store::HistoryWriter writer(*db_);
    for (int t = 0; t <= 600; t += 2) writer.add(feed.snapshot(t, 2));
    ASSERT_TRUE(writer.flush());
    first_ms_ = (diagnose::testing::kEpochS) * 1000;
  }

  std::size_t count(const std::vector<diagnose::Finding>& fs, const std::string& kind) const {
    return static_cast<std::size_t>(std::count_if(fs.begin(), fs.end(), [&](const auto& f) { return f.kind == kind; }));
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::HistoryDatabase> db_;
  std::int64_t first_ms_ = 0;
};

TEST_F(ProcessIdentitiesTest, WithoutCommandsTheSameNameIsOneJob) {
  auto got = diagnose_recorded(*db_, std::nullopt, std::nullopt);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(count(got->findings, "imbalance"), 1u);
  EXPECT_EQ(count(got->findings, "input_starved"), 0u);  // GPUs 1-2 "wait" for the saturated GPU 0
}

TEST_F(ProcessIdentitiesTest, RecordedCommandsSplitThemIntoTwoJobs) {
  ASSERT_TRUE(store::write_command_spans(*db_, {{"GPU-0", 4000, first_ms_, first_ms_ + 600'000, "python train.py"},
                                                {"GPU-1", 4010, first_ms_, first_ms_ + 600'000, "python serve.py --replica 1"},
                                                {"GPU-2", 4020, first_ms_, first_ms_ + 600'000, "python serve.py --replica 2"}}));
  auto got = diagnose_recorded(*db_, std::nullopt, std::nullopt);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(count(got->findings, "imbalance"), 0u);
  EXPECT_EQ(count(got->findings, "input_starved"), 2u);  // a job of their own: GPUs 1-2 are starved
}

}  // namespace process_identities_test
}  // namespace gpuwatch::history
