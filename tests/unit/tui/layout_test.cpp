#include "tui/layout.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::tui {
namespace {

TEST(Layout, OneGpuOn80x24GetsAPanelWithCharts) {
  Layout l = choose_layout(80, 24, 1, 0, LayoutKind::Auto, true);
  EXPECT_EQ(l.kind, LayoutKind::Panels);
  EXPECT_TRUE(l.charts);
  EXPECT_EQ(l.columns, 1);
  EXPECT_GE(l.process_rows, kMinProcessRows);
  EXPECT_FALSE(l.scrolls());
}

TEST(Layout, EightGpusOn80x24AreCompactTwoLinesEach) {
  Layout l = choose_layout(80, 24, 8, 0, LayoutKind::Auto, true);
  EXPECT_EQ(l.kind, LayoutKind::Compact);
  EXPECT_EQ(l.gpu_area_rows, 16);
  EXPECT_EQ(l.process_rows, 24 - 2 - 16 - 1);
}

TEST(Layout, EightGpusOn200x60ArePanelsInAGridWithCharts) {
  Layout l = choose_layout(200, 60, 8, 0, LayoutKind::Auto, true);
  EXPECT_EQ(l.kind, LayoutKind::Panels);
  EXPECT_EQ(l.columns, 3);
  EXPECT_TRUE(l.charts);
  EXPECT_EQ(l.gpu_area_rows, 3 * (kPanelBaseHeight + kPanelChartHeight));
}

TEST(Layout, ChartsAreDroppedBeforeThePanels) {
  Layout l = choose_layout(120, 40, 8, 0, LayoutKind::Auto, true);
  EXPECT_EQ(l.kind, LayoutKind::Panels);
  EXPECT_FALSE(l.charts);
  EXPECT_EQ(l.columns, 2);
}

TEST(Layout, SixtyFourGpusUseOneLineEachInColumnsAndScrollWhenSmall) {
  Layout big = choose_layout(200, 60, 64, 0, LayoutKind::Auto, true);
  EXPECT_EQ(big.kind, LayoutKind::Lines);
  EXPECT_EQ(big.columns, 200 / kLineMinWidth);
  EXPECT_FALSE(big.scrolls());
  Layout small = choose_layout(80, 24, 64, 0, LayoutKind::Auto, true);
  EXPECT_EQ(small.kind, LayoutKind::Lines);
  EXPECT_EQ(small.columns, 2);
  EXPECT_TRUE(small.scrolls());
  EXPECT_GE(small.process_rows, kMinProcessRows);  // the process list keeps its rows
}

TEST(Layout, EveryCountAndSizeFitsTheScreen) {
  for (int gpus = 1; gpus <= 64; ++gpus) {
    for (auto [w, h] : {std::pair{80, 24}, {120, 40}, {200, 60}, {79, 20}}) {
      for (auto kind : {LayoutKind::Auto, LayoutKind::Panels, LayoutKind::Compact, LayoutKind::Lines}) {
        Layout l = choose_layout(w, h, gpus, 0, kind, true);
        EXPECT_NE(l.kind, LayoutKind::Auto);
        EXPECT_LE(l.columns * l.cell_width, w);
        EXPECT_LE(kHeaderRows + l.gpu_area_rows + 1 + l.process_rows + kFooterRows, h) << gpus << " " << w << "x" << h;
        EXPECT_EQ(l.gpu_area_rows % l.cell_height, 0);  // whole cells only
      }
    }
  }
}

TEST(Layout, MigInstancesMakePanelsTaller) {
  Layout plain = choose_layout(200, 60, 3, 0, LayoutKind::Panels, false);
  Layout mig = choose_layout(200, 60, 3, 3, LayoutKind::Panels, false);
  EXPECT_EQ(mig.cell_height, plain.cell_height + 3);
}

TEST(Layout, NamesRoundTripAndTheKeyCycles) {
  for (auto k : {LayoutKind::Auto, LayoutKind::Panels, LayoutKind::Compact, LayoutKind::Lines}) {
    EXPECT_EQ(layout_from_string(to_string(k)), k);
  }
  EXPECT_FALSE(layout_from_string("grid").has_value());
  LayoutKind k = LayoutKind::Auto;
  for (int i = 0; i < 4; ++i) k = next_layout(k);
  EXPECT_EQ(k, LayoutKind::Auto);
  EXPECT_EQ(next_layout(LayoutKind::Auto), LayoutKind::Panels);
}

}  // namespace
}  // namespace gpuwatch::tui
