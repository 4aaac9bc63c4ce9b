// top's host line (issue 25): fitted to the width (wide form, else compact with parts left out
// from the right, never wider than the screen), absent values left out, hidden without a sample.
#include <gtest/gtest.h>

#include "terminal/width.hpp"
#include "tui/frame.hpp"
#include "tui_fixture.hpp"

namespace gpuwatch::tui {
namespace host_line_area_test {

host_signals::HostSample training_host() {
  host_signals::HostSample s;
  s.interval_s = 1;
  s.cpu_busy_percent = 93.6;
  s.cpu_iowait_percent = 4.2;
  s.memory_available_percent = 41;
  s.swap_in_pages_per_s = 10;
  s.swap_out_pages_per_s = 2;
  s.disk_read_bytes_per_s = 812e6;
  s.disk_write_bytes_per_s = 3e6;
  s.disk_busy_percent = 97;
  s.net_rx_bytes_per_s = 1.2e6;
  s.net_tx_bytes_per_s = 3e5;
  s.ib_rx_bytes_per_s = 2.1e9;
  s.ib_tx_bytes_per_s = 2e9;
  return s;
}

struct TopScreen {
  Model model;
  UiState state;
  History history{600};
  std::vector<ProcessView> visible;
  Frame frame;
};

TopScreen draw(Model model, int width, int height) {
  TopScreen t{std::move(model), {}, History(600), {}, {}};
  t.visible = visible_processes(t.model.processes, t.state.selected_gpu, t.state.filter, t.state.sort, t.state.descending);
  FrameInput in;
  in.model = &t.model;
  in.state = &t.state;
  in.history = &t.history;
  in.visible = &t.visible;
  in.title = "gpuwatch top  vm  08:05:54";
  t.frame = build_frame(in, width, height);
  return t;
}

Model with_host(const host_signals::HostSample& s, unsigned gpus = 2) {
  Model m = test::demo_model(gpus);
  m.host_line = make_host_line_view(s);
  return m;
}

TEST(TopHostLine, WideWhenItFitsUnderTheTitle) {
  auto t = draw(with_host(training_host()), 240, 40);
  EXPECT_EQ(t.frame.lines[1].text(),
            "host  CPU 94 % (iowait 4 %) | mem 41 % avail, swap 12 pg/s | disk R 812 MB/s W 3.0 MB/s, busy 97 % | "
            "net RX 1.2 MB/s TX 300 kB/s | IB RX 2.1 GB/s TX 2.0 GB/s");
  // CPU at 94 % is critical; the other parts plain.
  bool critical_cpu = false;
  for (const auto& span : t.frame.lines[1].spans) {
    if (span.text.starts_with("CPU ")) critical_cpu = span.tone == Tone::Critical;
    if (span.text.starts_with("mem ")) EXPECT_EQ(span.tone, Tone::Normal);
  }
  EXPECT_TRUE(critical_cpu);
  EXPECT_NE(t.frame.lines[2].text().find("[0] H100"), std::string::npos) << t.frame.text();  // the GPUs start below it
}

TEST(TopHostLine, NarrowTerminalsGetTheCompactFormLosingPartsFromTheRight) {
  const Model model = with_host(training_host());
  // host(6) + CPU 13 = 19, + mem 16 = 35, + disk 21 = 56, + net 22 = 78, + IB 21 = 99 columns.
  EXPECT_EQ(draw(model, 99, 30).frame.lines[1].text(),
            "host  CPU 94% io 4% | mem 41% avail | disk R 812M W 3.0M | net RX 1.2M TX 300k | IB RX 2.1G TX 2.0G");
  EXPECT_EQ(draw(model, 98, 30).frame.lines[1].text(),
            "host  CPU 94% io 4% | mem 41% avail | disk R 812M W 3.0M | net RX 1.2M TX 300k");
  EXPECT_EQ(draw(model, 80, 24).frame.lines[1].text(), "host  CPU 94% io 4% | mem 41% avail | disk R 812M W 3.0M | net RX 1.2M TX 300k");
  EXPECT_EQ(draw(model, 77, 24).frame.lines[1].text(), "host  CPU 94% io 4% | mem 41% avail | disk R 812M W 3.0M");
  EXPECT_EQ(draw(model, 55, 24).frame.lines[1].text(), "host  CPU 94% io 4% | mem 41% avail");
  EXPECT_EQ(draw(model, 34, 24).frame.lines[1].text(), "host  CPU 94% io 4%");
  // Under the first part itself: cut at the edge, never wrapped onto the next row.
  const auto tiny = draw(model, 12, 24);
  EXPECT_EQ(tiny.frame.lines[1].text(), "host  CPU 9…");
  for (int width : {12, 20, 38, 60, 80, 119, 120, 160, 200}) {
    const auto t = draw(model, width, 24);
    ASSERT_EQ(t.frame.lines.size(), 24u);
    for (const auto& line : t.frame.lines) {
      EXPECT_LE(terminal::display_width(line.text()), static_cast<std::size_t>(width)) << width << ": " << line.text();
    }
    EXPECT_EQ(t.frame.lines[1].text().rfind("host  CPU 9", 0), 0u) << width;
  }
}

TEST(TopHostLine, AbsentValuesAreLeftOutNeverZero) {
  host_signals::HostSample first_reading;  // PSI and memory only: every rate absent
  first_reading.memory_available_percent = 88;
  first_reading.cpu_pressure_some_percent = 3;
  const std::string wide = draw(with_host(first_reading), 240, 40).frame.lines[1].text();
  EXPECT_EQ(wide, "host  CPU N/A (PSI 3 %) | mem 88 % avail");
  EXPECT_EQ(wide.find(" 0 "), std::string::npos);
  EXPECT_EQ(wide.find("IB"), std::string::npos);
  host_signals::HostSample no_ib = training_host();
  no_ib.ib_rx_bytes_per_s.reset();
  no_ib.ib_tx_bytes_per_s.reset();
  no_ib.disk_busy_percent.reset();
  const std::string line = draw(with_host(no_ib), 240, 40).frame.lines[1].text();
  EXPECT_EQ(line.find("IB"), std::string::npos) << line;
  EXPECT_EQ(line.find("busy"), std::string::npos) << line;
  EXPECT_EQ(draw(with_host(host_signals::HostSample{}), 240, 40).frame.lines[1].text().rfind("host  N/A", 0), 0u);
}

TEST(TopHostLine, HiddenWithoutAHostSampleAndTheLayoutGivesItsRow) {
  const auto without = draw(test::demo_model(8), 80, 24);
  EXPECT_EQ(without.frame.text().find("host  "), std::string::npos);
  const auto with = draw(with_host(training_host(), 8), 80, 24);
  EXPECT_EQ(frame_header_rows(with.model), kHeaderRows + 1);
  EXPECT_EQ(frame_header_rows(without.model), kHeaderRows);
  // The row comes out of the process list: 8 GPUs stay compact on 80x24 (their names show).
  EXPECT_EQ(with.frame.layout.kind, without.frame.layout.kind);
  EXPECT_EQ(with.frame.layout.kind, LayoutKind::Compact);
  EXPECT_EQ(with.frame.layout.gpu_area_rows, without.frame.layout.gpu_area_rows);
  EXPECT_EQ(with.frame.layout.process_rows, without.frame.layout.process_rows - 1);
  EXPECT_EQ(with.frame.lines.size(), 24u);
  EXPECT_NE(with.frame.text().find("[7]"), std::string::npos) << with.frame.text();
}

TEST(TopHostLine, EveryScreenSizeAndGpuCountStillFits) {
  for (unsigned gpus : {1u, 8u, 64u}) {
    for (auto [w, h] : {std::pair{80, 24}, {60, 15}, {40, 8}, {200, 60}, {20, 4}}) {
      const auto t = draw(with_host(training_host(), gpus), w, h);
      SCOPED_TRACE(testing::Message() << gpus << " GPUs " << w << "x" << h);
      ASSERT_EQ(t.frame.lines.size(), static_cast<std::size_t>(h));
      for (const auto& line : t.frame.lines) EXPECT_LE(terminal::display_width(line.text()), static_cast<std::size_t>(w));
      EXPECT_EQ(t.frame.lines[1].text().rfind("host  ", 0), 0u);
      EXPECT_LE(kHeaderRows + 1 + t.frame.layout.gpu_area_rows + 1 + t.frame.layout.process_rows + kFooterRows, h + 1);
    }
  }
}

}  // namespace host_line_area_test
}  // namespace gpuwatch::tui
