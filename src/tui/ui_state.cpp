#include "tui/ui_state.hpp"

#include <csignal>
#include <fmt/format.h>

#include <algorithm>

namespace gpuwatch::tui {

const std::vector<SignalChoice>& signal_choices() {
  static const std::vector<SignalChoice> choices = {
      {SIGTERM, "TERM"}, {SIGINT, "INT"},   {SIGKILL, "KILL"}, {SIGHUP, "HUP"},
      {SIGUSR1, "USR1"}, {SIGUSR2, "USR2"}, {SIGSTOP, "STOP"}, {SIGCONT, "CONT"},
  };
  return choices;
}

void follow_cursor(UiState& state, const std::vector<ProcessView>& visible, std::size_t rows) {
  if (visible.empty()) {
    state.cursor = 0;
    state.process_scroll = 0;
    return;
  }
  if (state.cursor_pid) {
    for (std::size_t i = 0; i < visible.size(); ++i) {
      if (visible[i].pid == *state.cursor_pid) {
        state.cursor = i;
        break;
      }
    }
  }
  state.cursor = std::min(state.cursor, visible.size() - 1);
  state.cursor_pid = visible[state.cursor].pid;
  rows = std::max<std::size_t>(rows, 1);
  if (state.cursor < state.process_scroll) state.process_scroll = state.cursor;
  if (state.cursor >= state.process_scroll + rows) state.process_scroll = state.cursor + 1 - rows;
  if (state.process_scroll + rows > visible.size()) {
    state.process_scroll = visible.size() > rows ? visible.size() - rows : 0;
  }
}

namespace {

void move_cursor(UiState& state, const KeyContext& context, long delta) {
  if (context.visible.empty()) return;
  long at = static_cast<long>(state.cursor) + delta;
  at = std::clamp<long>(at, 0, static_cast<long>(context.visible.size()) - 1);
  state.cursor = static_cast<std::size_t>(at);
  state.cursor_pid = context.visible[state.cursor].pid;
}

// All GPUs -> the first -> ... -> the last -> all (STEP 1), or backwards.
void cycle_gpu(UiState& state, const KeyContext& context, int step) {
  const auto n = static_cast<long>(context.gpus.size());
  if (n == 0) return;
  long at = -1;  // all
  if (state.selected_gpu) {
    auto found = std::find(context.gpus.begin(), context.gpus.end(), *state.selected_gpu);
    if (found != context.gpus.end()) at = found - context.gpus.begin();
  }
  at += step;
  if (at >= n) at = -1;
  if (at < -1) at = n - 1;
  if (at < 0) state.selected_gpu.reset();
  else state.selected_gpu = context.gpus[static_cast<std::size_t>(at)];
  state.message = state.selected_gpu ? fmt::format("showing the processes of GPU {}{}", state.selected_gpu->index,
                                                   state.selected_gpu->host.empty() ? "" : " on " + state.selected_gpu->host)
                                     : "showing the processes of every GPU";
}

KeyOutcome normal_key(UiState& state, int k, const KeyContext& context) {
  KeyOutcome out;
  const long page = static_cast<long>(std::max<std::size_t>(context.process_rows, 1));
  switch (k) {
    case 'q': case 'Q': case key::F10: out.effect = Effect::Quit; break;
    case '?': case 'h': case key::F1: state.mode = Mode::Help; break;
    case '/': state.mode = Mode::Filter; state.filter_edit = state.filter.pattern(); break;
    case key::Escape:  // clears the filter and the GPU selection
      if (state.filter.active() || state.selected_gpu) {
        state.filter.set("");
        state.selected_gpu.reset();
        state.message = "filter and GPU selection cleared";
      }
      break;
    case 's': case '>': case key::F6:
      state.sort = next_column(state.sort, context.multi_host, 1);
      state.descending = column_spec(state.sort).descending;
      state.message = fmt::format("sorted by {}", column_spec(state.sort).title);
      break;
    case 'S': case '<':
      state.sort = next_column(state.sort, context.multi_host, -1);
      state.descending = column_spec(state.sort).descending;
      state.message = fmt::format("sorted by {}", column_spec(state.sort).title);
      break;
    case 'r': case 'I':
      state.descending = !state.descending;
      state.message = fmt::format("sorted by {} {}", column_spec(state.sort).title, state.descending ? "descending" : "ascending");
      break;
    case 'g': case key::Tab: case key::F2: cycle_gpu(state, context, 1); break;
    case 'G': case key::BackTab: cycle_gpu(state, context, -1); break;
    case 'a': state.selected_gpu.reset(); state.message = "showing the processes of every GPU"; break;
    case 'p': case ' ':
      state.paused = !state.paused;
      state.message = state.paused ? "paused: the display is frozen (p to resume)" : "resumed";
      break;
    case 'l': case 'L':
      state.layout = next_layout(state.layout);
      state.message = fmt::format("layout: {}", to_string(state.layout));
      break;
    case 'c': state.charts = !state.charts; state.message = state.charts ? "charts on" : "charts off"; break;
    case 't': case key::F5:
      state.tree = !state.tree;
      state.message = state.tree ? "tree view: GPU processes under their parents" : "tree view off";
      break;
    case 'T':
      if (!state.color_allowed) {
        state.message = "colours are off (NO_COLOR or --no-color): the mono theme only";
        state.message_is_error = true;
        break;
      }
      state.theme = next_theme(state.theme);
      state.message = fmt::format("theme: {}", to_string(state.theme));
      break;
    case 'w': case key::F12: out.effect = Effect::SaveConfig; break;
    case key::Up: case 'k': move_cursor(state, context, -1); break;
    case key::Down: case 'j': move_cursor(state, context, 1); break;
    case key::PageUp: move_cursor(state, context, -page); break;
    case key::PageDown: move_cursor(state, context, page); break;
    case key::Home: move_cursor(state, context, -static_cast<long>(context.visible.size())); break;
    case key::End: move_cursor(state, context, static_cast<long>(context.visible.size())); break;
    case 'K': case key::F9: {
      if (state.readonly) {
        state.message = "read-only (--readonly): sending signals is disabled";
        state.message_is_error = true;
        break;
      }
      if (context.visible.empty()) {
        state.message = "no process selected";
        state.message_is_error = true;
        break;
      }
      const ProcessView& p = context.visible[std::min(state.cursor, context.visible.size() - 1)];
      state.target = SignalTarget{p.pid, p.host, p.command, 0};
      state.signal_index = 0;
      state.mode = Mode::SignalMenu;
      break;
    }
    default: break;
  }
  return out;
}

}  // namespace

void handle_click(UiState& state, HitKind kind, std::size_t value, const KeyContext& context) {
  if (state.mode != Mode::Normal) return;
  state.message.clear();
  state.message_is_error = false;
  switch (kind) {
    case HitKind::Gpu:
      if (value >= context.gpus.size()) return;
      if (state.selected_gpu && *state.selected_gpu == context.gpus[value]) {
        state.selected_gpu.reset();
        state.message = "showing the processes of every GPU";
      } else {
        state.selected_gpu = context.gpus[value];
        state.message = fmt::format("showing the processes of GPU {}", context.gpus[value].index);
      }
      break;
    case HitKind::Process:
      if (value >= context.visible.size()) return;
      state.cursor = value;
      state.cursor_pid = context.visible[value].pid;
      break;
    case HitKind::ColumnTitle: {
      auto column = static_cast<Column>(value);
      if (column == state.sort) {
        state.descending = !state.descending;
      } else {
        state.sort = column;
        state.descending = column_spec(column).descending;
      }
      state.message = fmt::format("sorted by {} {}", column_spec(state.sort).title, state.descending ? "descending" : "ascending");
      break;
    }
  }
}

void handle_wheel(UiState& state, int step, const KeyContext& context) {
  if (state.mode == Mode::Normal) move_cursor(state, context, step);
}

KeyOutcome handle_key(UiState& state, int k, const KeyContext& context) {
  if (k == key::Resize) return {};
  state.message.clear();
  state.message_is_error = false;
  switch (state.mode) {
    case Mode::Normal: return normal_key(state, k, context);
    case Mode::Help:
      state.mode = Mode::Normal;  // any key closes the help
      if (k == 'q' || k == key::F10) return {Effect::Quit, {}};
      return {};
    case Mode::Filter:
      if (k == key::Enter || k == '\r') {
        if (auto error = state.filter.set(state.filter_edit)) {
          state.message = *error;
          state.message_is_error = true;
          return {};  // stays in the prompt to fix it
        }
        state.mode = Mode::Normal;
        state.cursor = 0;
        state.process_scroll = 0;
        state.cursor_pid.reset();
        state.message = state.filter.active() ? "filter: " + state.filter.pattern() : "filter cleared";
      } else if (k == key::Escape) {
        state.mode = Mode::Normal;
      } else if (k == key::Backspace || k == 127 || k == 8) {
        if (!state.filter_edit.empty()) {
          // Drop one UTF-8 code point.
          std::size_t at = state.filter_edit.size() - 1;
          while (at > 0 && (static_cast<unsigned char>(state.filter_edit[at]) & 0xC0) == 0x80) --at;
          state.filter_edit.erase(at);
        }
      } else if (k >= 32 && k < 0x10000 && k != 127) {
        if (k < 0x80) {
          state.filter_edit += static_cast<char>(k);
        } else if (k < 0x800) {
          state.filter_edit += static_cast<char>(0xC0 | (k >> 6));
          state.filter_edit += static_cast<char>(0x80 | (k & 0x3F));
        } else {
          state.filter_edit += static_cast<char>(0xE0 | (k >> 12));
          state.filter_edit += static_cast<char>(0x80 | ((k >> 6) & 0x3F));
          state.filter_edit += static_cast<char>(0x80 | (k & 0x3F));
        }
      }
      return {};
    case Mode::SignalMenu: {
      const auto& choices = signal_choices();
      if (k == key::Up || k == 'k') {
        state.signal_index = state.signal_index == 0 ? choices.size() - 1 : state.signal_index - 1;
      } else if (k == key::Down || k == 'j') {
        state.signal_index = (state.signal_index + 1) % choices.size();
      } else if (k >= '1' && k < '1' + static_cast<int>(choices.size())) {
        state.signal_index = static_cast<std::size_t>(k - '1');
        state.mode = Mode::Confirm;
      } else if (k == key::Enter || k == '\r') {
        state.mode = Mode::Confirm;
      } else if (k == key::Escape || k == 'q') {
        state.mode = Mode::Normal;
        state.target.reset();
        state.message = "no signal sent";
      }
      if (state.target) state.target->signal = choices[state.signal_index].number;
      return {};
    }
    case Mode::Confirm:
      state.mode = Mode::Normal;
      if ((k == 'y' || k == 'Y') && state.target) {
        KeyOutcome out{Effect::SendSignal, *state.target};
        state.target.reset();
        return out;
      }
      state.target.reset();
      state.message = "no signal sent";
      return {};
  }
  return {};
}

}  // namespace gpuwatch::tui
