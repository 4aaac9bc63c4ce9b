#include "tui/frame.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "terminal/width.hpp"
#include "tui_fixture.hpp"

namespace gpuwatch::tui {
namespace {

struct Built {
  Model model;
  UiState state;
  History history;
  std::vector<ProcessView> visible;
  Frame frame;
};

Built build(Model model, int width, int height, UiState state = {}) {
  Built b{std::move(model), std::move(state), History(600), {}, {}};
  for (int i = 0; i < 30; ++i) b.history.push(b.model);
  b.visible = visible_processes(b.model.processes, b.state.selected_gpu, b.state.filter, b.state.sort, b.state.descending);
  FrameInput in;
  in.model = &b.model;
  in.state = &b.state;
  in.history = &b.history;
  in.visible = &b.visible;
  in.title = "gpuwatch top  vm  08:05:54  driver 550.90.07";
  b.frame = build_frame(in, width, height);
  return b;
}

void expect_fits(const Frame& f, int width, int height) {
  ASSERT_EQ(static_cast<int>(f.lines.size()), height);
  for (std::size_t y = 0; y < f.lines.size(); ++y) {
    EXPECT_LE(terminal::display_width(f.lines[y].text()), static_cast<std::size_t>(width)) << "line " << y << ": " << f.lines[y].text();
  }
}

TEST(Frame, NothingOverflowsAnySizeOrGpuCount) {
  for (unsigned gpus : {1u, 2u, 8u, 17u, 64u}) {
    for (auto [w, h] : {std::pair{80, 24}, {120, 40}, {200, 60}, {60, 15}}) {
      for (auto kind : {LayoutKind::Auto, LayoutKind::Panels, LayoutKind::Compact, LayoutKind::Lines}) {
        UiState s;
        s.layout = kind;
        auto b = build(test::demo_model(gpus), w, h, s);
        SCOPED_TRACE(testing::Message() << gpus << " GPUs " << w << "x" << h << " " << to_string(kind));
        expect_fits(b.frame, w, h);
      }
    }
  }
}

TEST(Frame, EightGpusOn80x24ShowEveryGpuTheThrottleAndProcesses) {
  auto b = build(test::demo_model(8), 80, 24);
  std::string text = b.frame.text();
  EXPECT_EQ(b.frame.layout.kind, LayoutKind::Compact);
  for (int i = 0; i < 8; ++i) EXPECT_NE(text.find("[" + std::to_string(i) + "]"), std::string::npos) << i;
  EXPECT_NE(text.find("▼thermal"), std::string::npos);
  EXPECT_NE(text.find("H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(text.find("GPU-MEM▼"), std::string::npos);  // sorted by GPU memory, biggest first
  EXPECT_NE(text.find("14735"), std::string::npos);      // the biggest process is listed first
  EXPECT_LT(text.find("14735"), text.find("14729"));
  EXPECT_NE(text.find("q quit"), std::string::npos);
}

TEST(Frame, PanelsShowBarsValuesFindingAndCharts) {
  auto b = build(test::demo_model(8), 200, 60);
  ASSERT_EQ(b.frame.layout.kind, LayoutKind::Panels);
  std::string text = b.frame.text();
  EXPECT_NE(text.find("GPU █"), std::string::npos);  // a utilization bar
  EXPECT_NE(text.find("588/700W"), std::string::npos);
  EXPECT_NE(text.find("65/87°C"), std::string::npos);
  EXPECT_NE(text.find("60.9/79.6GiB"), std::string::npos);
  EXPECT_NE(text.find("SM 1125/1980MHz"), std::string::npos);
  EXPECT_NE(text.find("RX 42MB/s TX 11MB/s"), std::string::npos);
  EXPECT_NE(text.find("! critical memory leak"), std::string::npos);
  // The history charts: 30 points of 99% utilization, right-aligned (the newest at the right edge).
  std::string full;
  for (int i = 0; i < 30; ++i) full += "█";
  EXPECT_TRUE(std::regex_search(text, std::regex("util +" + full + "│"))) << text;
}

TEST(Frame, StaleGpuShowsItsAgeAndAbsentValuesSayNa) {
  Model m = test::demo_model(2);
  m.gpus[1].health = GpuHealth::Stale;
  m.gpus[1].age_seconds = 12.3;
  m.gpus[0].power_w.reset();
  for (auto kind : {LayoutKind::Panels, LayoutKind::Compact, LayoutKind::Lines}) {
    UiState s;
    s.layout = kind;
    auto b = build(m, 120, 40, s);
    std::string text = b.frame.text();
    EXPECT_NE(text.find("STALE 12s"), std::string::npos) << to_string(kind) << "\n" << text;
    if (kind != LayoutKind::Lines) EXPECT_NE(text.find("N/A/700W"), std::string::npos) << to_string(kind);
    else EXPECT_NE(text.find("N/A"), std::string::npos);
  }
}

TEST(Frame, SixtyFourGpusOn80x24ScrollToTheSelectedGpu) {
  UiState s;
  s.selected_gpu = GpuKey{"", 63};
  auto b = build(test::demo_model(64), 80, 24, s);
  EXPECT_EQ(b.frame.layout.kind, LayoutKind::Lines);
  std::string text = b.frame.text();
  EXPECT_NE(text.find("[63]"), std::string::npos);
  EXPECT_EQ(text.find("[0] "), std::string::npos);
  EXPECT_NE(text.find("of 64"), std::string::npos);
  EXPECT_NE(text.find("GPU 63"), std::string::npos);  // the title says what is selected
}

TEST(Frame, MigInstancesShowUnderTheirParent) {
  Model m = test::demo_model(1);
  m.gpus[0].mig.push_back({"3g.40gb", 1, 0, 20e9, 40e9});
  m.gpus[0].mig.push_back({"1g.10gb", 2, 0, std::nullopt, 10e9});
  auto b = build(m, 120, 40);
  std::string text = b.frame.text();
  EXPECT_NE(text.find("MIG 3g.40gb gi 1 ci 0"), std::string::npos) << text;
  EXPECT_NE(text.find("MIG 1g.10gb gi 2"), std::string::npos);
  EXPECT_LT(text.find("[0]"), text.find("MIG 3g.40gb"));
}

TEST(Frame, HelpFilterPromptConfirmationAndMessages) {
  UiState s;
  s.mode = Mode::Help;
  auto help = build(test::demo_model(2), 100, 30, s).frame.text();
  EXPECT_NE(help.find("Keys"), std::string::npos);
  EXPECT_NE(help.find("send a signal"), std::string::npos);

  UiState f;
  f.mode = Mode::Filter;
  f.filter_edit = "trai";
  EXPECT_NE(build(test::demo_model(2), 100, 30, f).frame.lines.back().text().find("/trai"), std::string::npos);

  UiState c;
  c.mode = Mode::Confirm;
  c.target = SignalTarget{14729, "", "python train.py", 15};
  EXPECT_NE(build(test::demo_model(2), 100, 30, c).frame.lines.back().text().find("Send SIGTERM to PID 14729"),
            std::string::npos);

  UiState e;
  e.filter.set("nothing-matches-this");
  EXPECT_NE(build(test::demo_model(2), 100, 30, e).frame.text().find("no process matches"), std::string::npos);
}

TEST(Frame, HitsLeadClicksToGpusRowsAndColumns) {
  auto b = build(test::demo_model(8), 200, 60);
  const Hit* gpu = hit_at(b.frame, 70, 2);  // second panel of the first grid row
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->kind, HitKind::Gpu);
  EXPECT_EQ(gpu->value, 1u);
  bool title = false, row = false;
  for (const auto& h : b.frame.hits) {
    title = title || h.kind == HitKind::ColumnTitle;
    row = row || h.kind == HitKind::Process;
  }
  EXPECT_TRUE(title);
  EXPECT_TRUE(row);
}

}  // namespace
}  // namespace gpuwatch::tui

namespace gpuwatch::tui {
namespace {

TEST(Frame, EveryKeyOfTheHelpIsInDocsTopMd) {
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/docs/top.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  for (const auto& [keys, what] : key_help()) {
    if (keys == "mouse") continue;  // a paragraph of its own
    EXPECT_NE(doc.str().find("| `" + keys + "` | " + what + " |"), std::string::npos) << keys;
  }
}

}  // namespace
}  // namespace gpuwatch::tui
