#include "status/text.hpp"

#include <gtest/gtest.h>

#include "unit/status/status_fixture.hpp"

namespace gpuwatch::status {
namespace {

TEST(StatusText, PlainScreen) {
  std::string text = render_status_text(testing::status_snapshot(), testing::status_context(), terminal::Style(false));
  EXPECT_EQ(text,
            "node-7  2026-11-29 14:26:31  driver 590.48.01  CUDA 13.1\n"
            "[0] NVIDIA H100 80GB HBM3 |  63°C, 100 % | 40123 / 81559 MiB | 631 / 700 W\n"
            "    └    4242 alice       40000 MiB  /opt/gpu_burn -d 60\n"
            "[1] NVIDIA H100 80GB HBM3 |  42°C, N/A % |     0 / 81559 MiB | N/A / 700 W\n"
            "[2] ERROR: GPU is lost (fallen off the bus? check dmesg for Xid 79)\n");
}

TEST(StatusText, UnsupportedIsNeverZero) {
  std::string text = render_status_text(testing::status_snapshot(), testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find("N/A % "), std::string::npos);
  EXPECT_EQ(text.find("  0 %"), std::string::npos);
}

TEST(StatusText, SimulatedNodeIsSaidSo) {
  auto context = testing::status_context();
  context.simulated_scenario = "demo";
  std::string text = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(text.find("[simulated: demo]"), std::string::npos);
}

TEST(StatusText, ColoursFollowGpustatThresholds) {
  std::string text = render_status_text(testing::status_snapshot(), testing::status_context(), terminal::Style(true));
  EXPECT_NE(text.find("\x1b[1;31m 63\x1b[0m°C"), std::string::npos);   // >= 50 C: bold red
  EXPECT_NE(text.find("\x1b[31m 42\x1b[0m°C"), std::string::npos);     // < 50 C: red
  EXPECT_NE(text.find("\x1b[1;32m100\x1b[0m %"), std::string::npos);   // >= 30 %: bold green
  EXPECT_NE(text.find("\x1b[1;35m631\x1b[0m"), std::string::npos);     // draw >= 40 % of limit
  EXPECT_NE(text.find("\x1b[1;31mERROR: GPU is lost"), std::string::npos);
}

TEST(StatusText, ProcessWithoutProcEntryShowsNvmlNameAndNa) {
  auto context = testing::status_context();
  context.processes.clear();
  std::string text = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(text.find("    └    4242 N/A         40000 MiB  gpu_burn\n"), std::string::npos);
}

TEST(StatusText, InaccessibleGpuShowsNvmlError) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[2].state = core::DeviceState::Inaccessible;
  snapshot.devices[2].nvml_code = 3;
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find("[2] ERROR: GPU is inaccessible: Not Supported\n"), std::string::npos);
}

TEST(StatusText, MigProcessesCarryTheirInstance) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[0].processes[0].gpu_instance_id = 1;
  snapshot.devices[0].processes[0].compute_instance_id = 0;
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find(" 40000 MiB  [MIG GI 1 CI 0] /opt/gpu_burn -d 60\n"), std::string::npos);
}

TEST(StatusText, CommandLinesAreCutToTheTerminalWidthOnly) {
  auto context = testing::status_context();
  context.processes[4242].command_line = "python train.py --config configs/llama-7b.yaml --nproc-per-node 8";
  std::string full = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(full.find("--nproc-per-node 8\n"), std::string::npos);
  context.columns = 80;
  std::string cut = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  auto line_start = cut.find("    └");
  auto line = cut.substr(line_start, cut.find('\n', line_start) - line_start);
  EXPECT_EQ(line, "    └    4242 alice       40000 MiB  python train.py --config configs/llama-7...");
  EXPECT_EQ(line.size() - std::string_view("└").size() + 1, 80u);  // display width
}

TEST(StatusText, ProcessListUnreadableIsSaid) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[1].processes_status = core::FieldStatus::NoPermission;
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find("    processes: N/A ("), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::status
