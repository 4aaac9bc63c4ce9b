#include "tui/ui_state.hpp"

#include <csignal>
#include <gtest/gtest.h>

#include "tui_fixture.hpp"

namespace gpuwatch::tui {
namespace {

KeyContext context_of(const Model& m, const UiState& s) {
  KeyContext c;
  for (const auto& g : m.gpus) c.gpus.push_back({g.host, g.index});
  c.visible = visible_processes(m.processes, s.selected_gpu, s.filter, s.sort, s.descending);
  c.process_rows = 3;
  return c;
}

KeyOutcome press(UiState& s, const Model& m, int k) { return handle_key(s, k, context_of(m, s)); }
void type(UiState& s, const Model& m, const std::string& text) {
  for (char ch : text) press(s, m, ch);
}

TEST(UiState, QuitKeys) {
  auto m = test::demo_model(2);
  UiState s;
  EXPECT_EQ(press(s, m, 'q').effect, Effect::Quit);
  EXPECT_EQ(press(s, m, key::F10).effect, Effect::Quit);
}

TEST(UiState, SortKeysCycleColumnsAndReverse) {
  auto m = test::demo_model(2);
  UiState s;
  s.sort = Column::Pid;
  s.descending = false;
  press(s, m, 's');
  EXPECT_EQ(s.sort, Column::User);
  EXPECT_NE(s.message.find("USER"), std::string::npos);
  press(s, m, 'S');
  EXPECT_EQ(s.sort, Column::Pid);
  press(s, m, 'r');
  EXPECT_TRUE(s.descending);
  s.sort = Column::Type;
  press(s, m, 's');
  EXPECT_EQ(s.sort, Column::GpuPercent);
  EXPECT_TRUE(s.descending);  // numbers start biggest first
}

TEST(UiState, FilterPromptAppliesOnEnterAndRefusesABadRegex) {
  auto m = test::demo_model(8);
  UiState s;
  press(s, m, '/');
  EXPECT_EQ(s.mode, Mode::Filter);
  type(s, m, "evaq");  // 'q' is text here, not quit
  EXPECT_EQ(press(s, m, key::Backspace).effect, Effect::None);
  type(s, m, "l");
  EXPECT_EQ(s.filter_edit, "eval");
  press(s, m, key::Enter);
  EXPECT_EQ(s.mode, Mode::Normal);
  EXPECT_EQ(s.filter.pattern(), "eval");
  EXPECT_EQ(context_of(m, s).visible.size(), 1u);

  press(s, m, '/');
  type(s, m, "(");
  press(s, m, key::Enter);
  EXPECT_EQ(s.mode, Mode::Filter);  // stays to be fixed
  EXPECT_TRUE(s.message_is_error);
  EXPECT_EQ(s.filter.pattern(), "eval");
  press(s, m, key::Escape);
  EXPECT_EQ(s.mode, Mode::Normal);
  press(s, m, key::Escape);  // clears the filter
  EXPECT_FALSE(s.filter.active());
}

TEST(UiState, GpuSelectionCyclesThroughEveryGpuAndBackToAll) {
  auto m = test::demo_model(3);
  UiState s;
  press(s, m, 'g');
  ASSERT_TRUE(s.selected_gpu);
  EXPECT_EQ(s.selected_gpu->index, 0u);
  press(s, m, 'g');
  press(s, m, 'g');
  EXPECT_EQ(s.selected_gpu->index, 2u);
  press(s, m, 'g');
  EXPECT_FALSE(s.selected_gpu);
  press(s, m, 'G');
  EXPECT_EQ(s.selected_gpu->index, 2u);
  press(s, m, 'a');
  EXPECT_FALSE(s.selected_gpu);
}

TEST(UiState, SignalNeedsAMenuChoiceAndAYes) {
  auto m = test::demo_model(2);
  UiState s;
  s.sort = Column::Pid;
  s.descending = false;
  press(s, m, key::Down);
  EXPECT_EQ(s.cursor_pid, 14730u);
  press(s, m, 'K');
  EXPECT_EQ(s.mode, Mode::SignalMenu);
  press(s, m, key::Down);  // INT
  press(s, m, key::Up);    // TERM
  press(s, m, key::Up);    // wraps to the last
  press(s, m, key::Down);  // TERM again
  press(s, m, key::Enter);
  EXPECT_EQ(s.mode, Mode::Confirm);
  auto out = press(s, m, 'y');
  EXPECT_EQ(out.effect, Effect::SendSignal);
  EXPECT_EQ(out.signal.pid, 14730u);
  EXPECT_EQ(out.signal.signal, SIGTERM);
  EXPECT_EQ(s.mode, Mode::Normal);

  press(s, m, 'K');
  press(s, m, '3');  // KILL, straight to the question
  EXPECT_EQ(s.mode, Mode::Confirm);
  EXPECT_EQ(s.target->signal, SIGKILL);
  EXPECT_EQ(press(s, m, 'n').effect, Effect::None);  // anything but y is no
  EXPECT_EQ(s.message, "no signal sent");
}

TEST(UiState, ReadonlyRefusesSignals) {
  auto m = test::demo_model(2);
  UiState s;
  s.readonly = true;
  EXPECT_EQ(press(s, m, 'K').effect, Effect::None);
  EXPECT_EQ(s.mode, Mode::Normal);
  EXPECT_TRUE(s.message_is_error);
  EXPECT_NE(s.message.find("read-only"), std::string::npos);
}

TEST(UiState, HelpPauseLayoutThemeChartsSave) {
  auto m = test::demo_model(2);
  UiState s;
  press(s, m, '?');
  EXPECT_EQ(s.mode, Mode::Help);
  EXPECT_EQ(press(s, m, 'x').effect, Effect::None);
  EXPECT_EQ(s.mode, Mode::Normal);
  press(s, m, 'p');
  EXPECT_TRUE(s.paused);
  press(s, m, ' ');
  EXPECT_FALSE(s.paused);
  press(s, m, 'l');
  EXPECT_EQ(s.layout, LayoutKind::Panels);
  press(s, m, 'T');
  EXPECT_EQ(s.theme, Theme::Light);
  press(s, m, 't');
  EXPECT_TRUE(s.tree);
  press(s, m, key::F5);
  EXPECT_FALSE(s.tree);
  press(s, m, 'c');
  EXPECT_FALSE(s.charts);
  EXPECT_EQ(press(s, m, 'w').effect, Effect::SaveConfig);
  s.color_allowed = false;
  s.theme = Theme::Mono;
  press(s, m, 'T');
  EXPECT_EQ(s.theme, Theme::Mono);  // NO_COLOR: mono only
}

TEST(UiState, CursorFollowsItsPidAcrossReSortsAndStaysInView) {
  auto m = test::demo_model(8);
  UiState s;
  s.sort = Column::Pid;
  s.descending = false;
  auto c = context_of(m, s);
  follow_cursor(s, c.visible, 3);
  press(s, m, key::End);
  EXPECT_EQ(s.cursor_pid, 14736u);
  follow_cursor(s, context_of(m, s).visible, 3);
  EXPECT_EQ(s.process_scroll, 5u);
  s.descending = true;
  follow_cursor(s, context_of(m, s).visible, 3);
  EXPECT_EQ(s.cursor, 0u);  // same PID, now first
  EXPECT_EQ(s.process_scroll, 0u);
}

TEST(UiState, ClicksSelectGpusAndRowsAndSortColumns) {
  auto m = test::demo_model(4);
  UiState s;
  auto c = context_of(m, s);
  handle_click(s, HitKind::Gpu, 2, c);
  EXPECT_EQ(s.selected_gpu->index, 2u);
  handle_click(s, HitKind::Gpu, 2, c);
  EXPECT_FALSE(s.selected_gpu);
  handle_click(s, HitKind::Process, 3, c);
  EXPECT_EQ(s.cursor, 3u);
  handle_click(s, HitKind::ColumnTitle, static_cast<std::size_t>(Column::User), c);
  EXPECT_EQ(s.sort, Column::User);
  EXPECT_FALSE(s.descending);
  handle_click(s, HitKind::ColumnTitle, static_cast<std::size_t>(Column::User), c);
  EXPECT_TRUE(s.descending);
  handle_wheel(s, -2, c);
  EXPECT_EQ(s.cursor, 1u);
}

}  // namespace
}  // namespace gpuwatch::tui
