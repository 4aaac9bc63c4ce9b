// LiveSession over the fake driver: a session configured as serve's (diagnosis on its thread,
// the built-in alerts, the history recorder) samples, finds a lost GPU, fires GpuLost and
// records the rows; one configured as record's (whole ticks) diagnoses what it is handed.
#include "live/live_session.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "alerts/builtin_rules.hpp"
#include "recorder/recorder_thread.hpp"
#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::live {
namespace live_session_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using testing::eventually;

bool has_kind(const std::vector<diagnose::Finding>& findings, const std::string& kind, unsigned gpu) {
  return std::any_of(findings.begin(), findings.end(), [&](const diagnose::Finding& f) {
    return f.kind == kind && std::find(f.gpus.begin(), f.gpus.end(), gpu) != f.gpus.end();
  });
}

// Counts what the session hands its recorder.
class CountingRecorder final : public SampleRecorder {
 public:
  void start() override { started = true; }
  void push(const core::DeviceSnapshot&, std::chrono::system_clock::time_point) override { ++samples; }
  void push_xid_counts(std::vector<XidCount>) override { ++xid_pushes; }
  void stop() override { stopped = true; }
  std::atomic<bool> started{false}, stopped{false};
  std::atomic<int> samples{0}, xid_pushes{0};
};

// Two GPUs, the second one lost (NVML answers GPU_IS_LOST for its handle).
void two_gpus_one_lost(testing::FakeNvml& fake) {
  fake.devices.resize(2);
  fake.devices[1].uuid = "GPU-99999999-2222-3333-4444-555555555555";
  fake.devices[1].handle_rc = NVML_ERROR_GPU_IS_LOST;
}

TEST(LiveSession, ServeShapedSessionSamplesDiagnosesAlertsAndRecords) {
  testing::FakeNvml fake;
  two_gpus_one_lost(fake);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  store::testing::TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  auto history = std::make_shared<recorder::LiveRecorder>(std::move(*db), recorder::StoragePlan{}, 20ms);

  std::atomic<int> finding_ticks{0};
  LiveSessionOptions options;
  options.sampling.interval = 20ms;
  options.diagnosis = DiagnosisMode::Background;
  options.alerts = alert_runtime::PreparedAlerts{alerts::builtin_rules(), {}};
  options.host = "node1";
  options.recorder = history;
  options.on_findings = [&](const std::vector<diagnose::Finding>&) { ++finding_ticks; };
  auto session = LiveSession::open(api, std::move(options));
  ASSERT_TRUE(session) << session.error().message;
  ASSERT_NE((*session)->alert_board(), nullptr) << "serve's board: alerts run on the diagnosis thread";
  EXPECT_NE((*session)->alerts_summary().find("built-in"), std::string::npos) << (*session)->alerts_summary();

  (*session)->start();
  ASSERT_TRUE(eventually([&] { return (*session)->collector().ready(); }));
  EXPECT_EQ((*session)->collector().gpu_count(), 2u);
  ASSERT_TRUE(eventually([&] { return has_kind((*session)->findings(), "gpu_lost", 1); }))
      << "the live diagnosis finds the lost GPU";
  EXPECT_FALSE(has_kind((*session)->findings(), "gpu_lost", 0));
  ASSERT_TRUE(eventually([&] {
    auto active = (*session)->alert_board()->active();
    return std::any_of(active.begin(), active.end(), [](const alerts::Alert& a) {
      return a.rule == "GpuLost" && a.gpu == 1u && a.state == alerts::AlertState::Firing;
    });
  })) << "the alert engine is ticked after each diagnosis tick";
  EXPECT_GT(finding_ticks.load(), 0);
  bool view_has_findings = false;
  (*session)->with_view([&](const LiveView& view) { view_has_findings = has_kind(view.findings, "gpu_lost", 1); });
  EXPECT_TRUE(view_has_findings) << "the view carries the live findings (/metrics, /api/v1/snapshot)";

  EXPECT_TRUE((*session)->stop(2s));
  EXPECT_GT(history->written_rows(), 0u) << "every sample went to the history recorder; stop() wrote the last batch";
  EXPECT_TRUE((*session)->stop(2s)) << "idempotent";
}

TEST(LiveSession, EverySampleGoesToTheRecorderAndTheCallersHook) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto counting = std::make_shared<CountingRecorder>();
  std::atomic<int> hooked{0};
  LiveSessionOptions options;
  options.sampling.interval = 20ms;
  options.sampling.on_sample = [&](const core::DeviceSnapshot&, std::chrono::system_clock::time_point) { ++hooked; };
  options.recorder = counting;
  auto session = LiveSession::open(api, std::move(options));
  ASSERT_TRUE(session);
  EXPECT_EQ((*session)->alert_board(), nullptr) << "no alerts configured";
  (*session)->start();
  EXPECT_TRUE(counting->started) << "the recorder starts with the session";
  ASSERT_TRUE(eventually([&] { return counting->samples >= 3 && hooked >= 3; }));
  (*session)->record_xid_counts();
  EXPECT_EQ(counting->xid_pushes.load(), 1);
  EXPECT_TRUE((*session)->stop(2s));
  EXPECT_TRUE(counting->stopped) << "stop() ends the recorder (its last batch)";
  EXPECT_TRUE((*session)->findings().empty()) << "diagnosis off";
}

TEST(LiveSession, RecordShapedSessionDiagnosesWholeTicksItIsHanded) {
  testing::FakeNvml fake;
  two_gpus_one_lost(fake);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  LiveSessionOptions options;
  options.sampling.interval = 20ms;
  options.sampling.catch_up = true;
  options.diagnosis = DiagnosisMode::WholeTicks;
  options.alerts = alert_runtime::PreparedAlerts{alerts::builtin_rules(), {}};
  std::vector<std::string> lines;
  options.tell_alerts = true;
  options.log = [&](const std::string& line) { lines.push_back(line); };
  auto session = LiveSession::open(api, std::move(options));
  ASSERT_TRUE(session);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("alerts: ", 0), 0u) << lines[0];
  EXPECT_EQ((*session)->alert_board(), nullptr) << "record has no HTTP board";
  (*session)->start();
  ASSERT_TRUE(eventually([&] { return (*session)->collector().ready(); }));
  core::Snapshot tick;
  (*session)->with_view([&](const LiveView& view) { tick = *view.snapshot; });
  EXPECT_TRUE((*session)->findings().empty()) << "nothing observed yet";
  auto findings = (*session)->observe(tick);
  EXPECT_TRUE(has_kind(findings, "gpu_lost", 1));
  EXPECT_TRUE(has_kind((*session)->findings(), "gpu_lost", 1)) << "findings() is the latest observe()'s";
  EXPECT_TRUE((*session)->stop(2s));
}

}  // namespace live_session_test
}  // namespace gpuwatch::live
