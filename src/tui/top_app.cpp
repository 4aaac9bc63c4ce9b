#include "tui/top_app.hpp"

#include <signal.h>
#include <sys/types.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fmt/format.h>

#include "tui/frame.hpp"
#include "tui/history.hpp"
#include "tui/process_tree.hpp"
#include "tui/screen.hpp"
#include "tui/ui_state.hpp"

namespace gpuwatch::tui {
namespace {

using Clock = std::chrono::steady_clock;

std::string clock_text() {
  std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%H:%M:%S", &local);
  return buffer;
}

// Sends the signal, or says why not. Local processes only.
void send_signal(UiState& state, const SignalTarget& target) {
  state.message_is_error = true;
  if (state.readonly) {
    state.message = "read-only (--readonly): sending signals is disabled";
    return;
  }
  if (!target.host.empty()) {
    state.message = "signals go to local processes only (" + target.host + " is remote)";
    return;
  }
  const char* name = "?";
  for (const auto& c : signal_choices()) {
    if (c.number == target.signal) name = c.name.data();
  }
  const auto pid = static_cast<pid_t>(target.pid);
  if (pid <= 1) {
    state.message = fmt::format("refusing to signal PID {}", target.pid);
    return;
  }
  if (::kill(pid, 0) != 0) {
    state.message = errno == EPERM ? fmt::format("not allowed to signal PID {}: it belongs to another user", target.pid)
                                   : fmt::format("PID {} is gone", target.pid);
    return;
  }
  if (::kill(pid, target.signal) != 0) {
    state.message = fmt::format("could not send SIG{} to PID {}: {}", name, target.pid, std::strerror(errno));
    return;
  }
  state.message_is_error = false;
  state.message = fmt::format("sent SIG{} to PID {}", name, target.pid);
}

TopConfig current_config(const UiState& state) {
  TopConfig c;
  c.layout = state.layout;
  c.theme = state.theme;
  c.charts = state.charts;
  c.sort = state.sort;
  c.descending = state.descending;
  c.tree = state.tree;
  return c;
}

}  // namespace

TopResult run_top(DataSource& source, const TopOptions& options) {
  TopResult result;
  UiState state;
  state.readonly = options.readonly;
  state.color_allowed = options.color;
  state.theme = options.color ? options.config.theme.value_or(Theme::Default) : Theme::Mono;
  state.layout = options.config.layout.value_or(LayoutKind::Auto);
  state.charts = options.config.charts.value_or(true);
  state.sort = options.config.sort.value_or(Column::GpuMemory);
  state.descending = options.config.descending.value_or(column_spec(state.sort).descending);
  state.tree = options.config.tree.value_or(false);
  bool ancestors_wanted = false;

  auto screen = Screen::open(options.color);
  if (!screen) {
    std::fprintf(stderr, "gpuwatch top: %s\n", screen.error().message.c_str());
    result.exit_code = 2;
    return result;
  }
  source.start();
  History history(600);
  Model model = source.read();
  auto next_sample = Clock::now() + options.interval;
  bool quit = false;
  while (!quit) {
    const auto now = Clock::now();
    if (now >= next_sample) {
      // Read every interval, paused too: the local source's diagnosis ticks in read().
      Model latest = source.read();
      if (!state.paused) {
        model = std::move(latest);
        history.push(model);
      }
      do next_sample += options.interval; while (next_sample <= now);
    }
    // The list as shown, and the frame.
    KeyContext context;
    for (const auto& g : model.gpus) context.gpus.push_back({g.host, g.index});
    context.multi_host = false;
    for (const auto& g : model.gpus) context.multi_host = context.multi_host || !g.host.empty();
    context.visible = visible_processes(model.processes, state.selected_gpu, state.filter, state.sort, state.descending);
    if (state.tree) context.visible = process_tree(context.visible, model.ancestors);
    if (state.tree != ancestors_wanted) {
      ancestors_wanted = state.tree;
      source.want_ancestors(state.tree);
    }
    const int width = (*screen)->width();
    const int height = (*screen)->height();
    {
      int mig_rows = 0;
      for (const auto& g : model.gpus) mig_rows = std::max(mig_rows, static_cast<int>(g.mig.size()));
      Layout layout = choose_layout(width, height, static_cast<int>(model.gpus.size()), mig_rows, state.layout, state.charts,
                                    frame_header_rows(model));
      context.process_rows = static_cast<std::size_t>(std::max(layout.process_rows, 1));
    }
    follow_cursor(state, context.visible, context.process_rows);
    FrameInput input;
    input.model = &model;
    input.state = &state;
    input.history = &history;
    input.visible = &context.visible;
    input.title = options.title + "  " + clock_text();
    if (model.driver_version) input.title += "  driver " + *model.driver_version;
    if (!options.note.empty()) input.title += "  " + options.note;
    if (!model.note.empty()) input.title += "  " + model.note;
    input.title += fmt::format("  {} GPU{}", model.gpus.size(), model.gpus.size() == 1 ? "" : "s");
    input.interval_seconds = std::chrono::duration<double>(options.interval).count();
    Frame frame = build_frame(input, width, height);
    (*screen)->draw(frame, state.theme);

    // Input until the next refresh; every key redraws at once.
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_sample - Clock::now());
    auto in = (*screen)->next_input(std::max(wait, std::chrono::milliseconds(0)));
    if (!in) continue;
    switch (in->kind) {
      case Input::Kind::Click:
        if (const Hit* hit = hit_at(frame, in->x, in->y)) handle_click(state, hit->kind, hit->value, context);
        break;
      case Input::Kind::WheelUp: handle_wheel(state, -3, context); break;
      case Input::Kind::WheelDown: handle_wheel(state, 3, context); break;
      case Input::Kind::Key: {
        KeyOutcome outcome = handle_key(state, in->key, context);
        if (outcome.effect == Effect::Quit) quit = true;
        if (outcome.effect == Effect::SendSignal) send_signal(state, outcome.signal);
        if (outcome.effect == Effect::SaveConfig) {
          auto saved = save_config(options.config_path, current_config(state));
          state.message_is_error = !saved;
          state.message = saved ? "settings saved to " + options.config_path : "not saved: " + saved.error().message;
        }
        break;
      }
    }
  }
  screen->reset();  // restores the terminal before anything waits
  result.source_stopped = source.stop();
  return result;
}

}  // namespace gpuwatch::tui
