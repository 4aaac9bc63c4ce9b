#include "status/text.hpp"

#include <gtest/gtest.h>

#include "terminal/width.hpp"
#include "unit/status/status_fixture.hpp"

namespace gpuwatch::status {
namespace {

TEST(StatusText, PlainScreen) {
  std::string text = render_status_text(testing::status_snapshot(), testing::status_context(), terminal::Style(false));
  EXPECT_EQ(text,
            "node-7  2026-11-29 14:26:31  driver 590.48.01  CUDA 13.1\n"
            "[0] NVIDIA H100 80GB HBM3 |  63°C, 100 % | 40123 / 81559 MiB | 631 / 700 W | SM 1755 / 1980 MHz"
            " | PCIe RX  12 TX   3 MB/s\n"
            "    └    4242 alice       40000 MiB  GPU  97 %  CPU 102 %  RSS   2048 MiB  /opt/gpu_burn -d 60\n"
            "[1] NVIDIA H100 80GB HBM3 |  42°C, N/A % |     0 / 81559 MiB | N/A / 700 W | SM  N/A /  N/A MHz"
            " | PCIe RX N/A TX N/A MB/s\n"
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

// Issue 9: 39, 65 and 92 C were all the same bold red. Now by severity against the GPU's own
// slowdown threshold (87 C here): plain, plain, red; memory and power against their limits.
TEST(StatusText, issue_9_colours_by_severity_not_by_column) {
  auto snapshot = testing::status_snapshot();
  auto temperature_cell = [&](std::int64_t celsius) {
    snapshot.devices[0].get(core::FieldId::TemperatureGpu) = core::FieldReading::of(celsius);
    std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(true));
    auto end = text.find("°C");
    return text.substr(text.rfind('|', end) + 2, end - text.rfind('|', end) - 2);
  };
  EXPECT_EQ(temperature_cell(39), " 39");                    // plain
  EXPECT_EQ(temperature_cell(65), " 65");                    // plain
  EXPECT_EQ(temperature_cell(75), "\x1b[33m 75\x1b[0m");     // within 15 C of slowdown: yellow
  EXPECT_EQ(temperature_cell(92), "\x1b[1;31m 92\x1b[0m");   // past slowdown: red

  std::string text = render_status_text(testing::status_snapshot(), testing::status_context(), terminal::Style(true));
  EXPECT_NE(text.find(" 40123 / "), std::string::npos);  // 49 % of memory: plain
  EXPECT_NE(text.find("\x1b[33m631\x1b[0m / 700 W"), std::string::npos);  // 90 % of the limit: yellow
  EXPECT_NE(text.find("\x1b[1;31mERROR: GPU is lost"), std::string::npos);
  snapshot = testing::status_snapshot();
  snapshot.devices[0].get(core::FieldId::MemoryUsed) = core::FieldReading::of(std::uint64_t{80000} * 1024 * 1024);
  text = render_status_text(snapshot, testing::status_context(), terminal::Style(true));
  EXPECT_NE(text.find("\x1b[1;31m80000\x1b[0m / 81559 MiB"), std::string::npos);  // 98 %: red
}

TEST(StatusText, issue_9_throttled_gpu_is_marked_with_its_reason) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[0].get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(std::uint64_t{0x60});
  std::string wide = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(wide.find(" MB/s | ▼ throttled: thermal\n"), std::string::npos) << wide;
  snapshot.devices[0].get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(std::uint64_t{0x4 | 0x8 | 0x1});
  wide = render_status_text(snapshot, testing::status_context(), terminal::Style(true));
  EXPECT_NE(wide.find("\x1b[1;31m▼ throttled: power cap, HW slowdown\x1b[0m"), std::string::npos) << wide;
  EXPECT_NE(wide.find("SM \x1b[1;31m1755\x1b[0m / 1980 MHz"), std::string::npos);  // the held-down clock
  auto context = testing::status_context();
  context.columns = 80;
  std::string compact = render_status_text(snapshot, context, terminal::Style(false));
  EXPECT_NE(compact.find("MHz ▼power cap,HW slowdown\n"), std::string::npos) << compact;
  // Idle and sync boost hold clocks down too, but are not trouble: no marker.
  snapshot.devices[0].get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(std::uint64_t{0x1 | 0x10});
  EXPECT_EQ(render_status_text(snapshot, testing::status_context(), terminal::Style(false)).find("▼"), std::string::npos);
}

TEST(StatusText, issue_9_fan_only_where_the_board_has_one) {
  auto snapshot = testing::status_snapshot();
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_EQ(text.find("fan"), std::string::npos);  // SXM board: no fan, nothing shown (never 0 %)
  snapshot.devices[0].get(core::FieldId::FanSpeed) = core::FieldReading::of(0.3);
  text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find(" | fan  30 %\n"), std::string::npos) << text;
  auto context = testing::status_context();
  context.columns = 80;
  text = render_status_text(snapshot, context, terminal::Style(false));
  EXPECT_NE(text.find("MHz  fan  30%\n"), std::string::npos) << text;
}

TEST(StatusText, ProcessWithoutProcEntryShowsNvmlNameAndNa) {
  auto context = testing::status_context();
  context.processes.clear();
  std::string text = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(text.find("    └    4242 N/A         40000 MiB  GPU  97 %  CPU N/A %  RSS    N/A MiB  gpu_burn\n"),
            std::string::npos) << text;
}

TEST(StatusText, InaccessibleGpuShowsNvmlError) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[2].state = core::DeviceState::Inaccessible;
  snapshot.devices[2].error = {core::ErrorReason::NotSupported, 3};
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find("[2] ERROR: GPU is inaccessible: Not Supported\n"), std::string::npos);
}

TEST(StatusText, MigProcessesCarryTheirInstance) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[0].processes[0].gpu_instance_id = 1;
  snapshot.devices[0].processes[0].compute_instance_id = 0;
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find(" MiB  [MIG GI 1 CI 0] /opt/gpu_burn -d 60\n"), std::string::npos);
}

TEST(StatusText, CommandLinesAreCutToTheTerminalWidthOnly) {
  auto context = testing::status_context();
  context.processes[4242].command_line = "python train.py --config configs/llama-7b.yaml --nproc-per-node 8 --epochs 90 --seed 1";
  std::string full = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(full.find("--seed 1\n"), std::string::npos);  // a pipe: never cut
  context.columns = 160;
  std::string cut = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  auto line_start = cut.find("    └");
  auto line = cut.substr(line_start, cut.find('\n', line_start) - line_start);
  EXPECT_EQ(terminal::display_width(line), 160u) << line;
  EXPECT_EQ(line.substr(line.size() - 3), "...");
}

// Issue 9: below 160 columns, two lines per GPU: 8 GPUs fit an 80x24 terminal.
TEST(StatusText, issue_9_compact_form_fits_eight_gpus_in_80x24) {
  auto snapshot = testing::status_snapshot();
  core::DeviceSnapshot busy = snapshot.devices[0];
  busy.processes.push_back(busy.processes[0]);
  busy.processes[1].pid = 4243;  // two processes on every GPU: still one line
  snapshot.devices.clear();
  for (unsigned i = 0; i < 8; ++i) {
    busy.index = i;
    snapshot.devices.push_back(busy);
  }
  snapshot.devices[3].get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(std::uint64_t{0x60});
  auto context = testing::status_context();
  context.simulated_scenario = "demo";
  context.processes[4242].command_line = "python train.py --config configs/llama-7b.yaml --nproc-per-node 8";
  context.columns = 80;
  std::string text = render_status_text(snapshot, context, terminal::Style(false));
  std::size_t lines = 0;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1, ++lines) {
    EXPECT_LE(terminal::display_width(text.substr(start, end - start)), 80u) << text.substr(start, end - start);
  }
  EXPECT_EQ(lines, 1u + 8 * 2);
  EXPECT_NE(text.find("[0] H100 80GB HBM3   63°C 100%  40123/81559MiB  631/700W  1755/1980MHz\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("    PCIe RX 12 TX  3 MB/s  └ 2 procs 80000MiB: 4242 python train.py"), std::string::npos) << text;
  EXPECT_NE(text.find("[3] H100 80GB HBM3   63°C 100%  40123/81559MiB  631/700W  1755/1980MHz ▼thermal\n"),
            std::string::npos) << text;

  snapshot.devices.resize(1);
  snapshot.devices[0].processes.resize(1);
  text = render_status_text(snapshot, context, terminal::Style(false));
  EXPECT_NE(text.find("    PCIe RX 12 TX  3 MB/s  └ 4242 alice 40000MiB 97% python train.py"), std::string::npos) << text;
  auto last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  EXPECT_EQ(terminal::display_width(last), 80u + 1) << last;  // cut to the width ("...", then '\n')
}

TEST(StatusText, issue_9_wide_form_from_160_columns) {
  auto context = testing::status_context();
  context.columns = 159;
  EXPECT_EQ(render_status_text(testing::status_snapshot(), context, terminal::Style(false)).find(" | SM "), std::string::npos);
  context.columns = 160;
  std::string wide = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(wide.find(" | SM 1755 / 1980 MHz"), std::string::npos);
  EXPECT_NE(wide.find("GPU  97 %  CPU 102 %  RSS   2048 MiB"), std::string::npos);
}

TEST(StatusText, ProcessListUnreadableIsSaid) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[1].processes_status = core::FieldStatus::NoPermission;
  std::string text = render_status_text(snapshot, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find("    processes: N/A ("), std::string::npos);
}

// issue 15: who a process belongs to, before its command; nothing when nothing is known.
TEST(StatusText, OwnerTagBeforeTheCommand) {
  auto context = testing::status_context();
  std::string plain = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_EQ(plain.find("[job"), std::string::npos);
  context.owners[4242].slurm_job_id = "4821";
  context.owners[4242].slurm_step = "0";
  std::string wide = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(wide.find("[job 4821.0] /opt/gpu_burn -d 60"), std::string::npos) << wide;
  context.columns = 80;
  std::string compact = render_status_text(testing::status_snapshot(), context, terminal::Style(false));
  EXPECT_NE(compact.find("[job 4821.0] /opt/gpu_"), std::string::npos) << compact;  // the command is cut to fit 80
  context.owners[4242] = {};  // an empty attribution says nothing
  EXPECT_EQ(render_status_text(testing::status_snapshot(), context, terminal::Style(false)).find("[-]"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::status

namespace gpuwatch::status {
namespace text_encoding_test {  // issue 31: what a user, a driver or a GPU named never reaches the terminal raw

TEST(StatusText, HostileNamesAreShownVisiblyInBothForms) {
  auto snapshot = testing::status_snapshot();
  snapshot.driver_version = "590\x1b]52;c;aGVsbG8=\x07";
  snapshot.devices[0].get(core::FieldId::Name) = core::FieldReading::of(std::string("H100\x1b[2J\nFORGED"));
  auto context = testing::status_context();
  context.processes[4242].command_line = "python \x1b]8;;https://evil.example\x07x\r\nFORGED \xff";
  context.processes[4242].user = std::string("u\x1b[31m");
  for (std::size_t columns : {std::size_t{0}, std::size_t{100}}) {  // wide, compact
    context.columns = columns;
    const std::string out = render_status_text(snapshot, context, terminal::Style(false));
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    EXPECT_EQ(out.find('\r'), std::string::npos);
    EXPECT_EQ(out.find("\nFORGED"), std::string::npos) << out;
    EXPECT_EQ(out.find('\xff'), std::string::npos);
    EXPECT_NE(out.find("590\\x1b]52;c;aGVsbG8=\\x07"), std::string::npos) << out;
    EXPECT_NE(out.find("H100\\x1b[2J\\nFORGED"), std::string::npos) << out;
  }
}

}  // namespace text_encoding_test
}  // namespace gpuwatch::status
