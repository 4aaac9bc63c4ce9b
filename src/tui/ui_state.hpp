#pragma once
// What the person has chosen (sort, filter, selection, layout, theme, pause) and the key
// handling state machine over it. Pure: keys come in as numbers (the Key codes below; the
// curses edge translates), effects that need the outside world (quit, save the config, send a
// signal) come out as a KeyOutcome for the caller to carry out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tui/layout.hpp"
#include "tui/process_table.hpp"
#include "tui/theme.hpp"

namespace gpuwatch::tui {

// Keys besides printable characters (their ASCII codes), independent of curses.
namespace key {
inline constexpr int Enter = '\n';
inline constexpr int Escape = 27;
inline constexpr int Tab = '\t';
inline constexpr int Up = 0x10001, Down = 0x10002, Left = 0x10003, Right = 0x10004, PageUp = 0x10005,
                     PageDown = 0x10006, Home = 0x10007, End = 0x10008, Backspace = 0x10009, BackTab = 0x1000a,
                     F1 = 0x10011, F2 = 0x10012, F5 = 0x10015, F6 = 0x10016, F9 = 0x10019, F10 = 0x1001a, F12 = 0x1001c,
                     Resize = 0x10100;
}  // namespace key

enum class Mode { Normal, Filter, Help, SignalMenu, Confirm };

struct SignalChoice {
  int number;             // SIGTERM...
  std::string_view name;  // "TERM"
};
const std::vector<SignalChoice>& signal_choices();

struct SignalTarget {
  std::uint32_t pid = 0;
  std::string host;  // "" local
  std::string command;
  int signal = 0;
};

struct UiState {
  Mode mode = Mode::Normal;
  Column sort = Column::GpuMemory;
  bool descending = true;
  ProcessFilter filter;
  std::string filter_edit;                 // the text being typed after `/`
  std::optional<GpuKey> selected_gpu;      // processes of this GPU only; nullopt: all
  std::size_t cursor = 0;                  // selected row of the visible process list
  std::optional<std::uint32_t> cursor_pid; // follows the process across refreshes and re-sorts
  std::size_t process_scroll = 0;          // first visible process row
  int gpu_scroll = 0;                      // first GPU row shown when the GPU area scrolls
  bool paused = false;
  LayoutKind layout = LayoutKind::Auto;
  bool charts = true;
  bool tree = false;                       // the tree view (process_tree.hpp)
  Theme theme = Theme::Default;
  bool color_allowed = true;               // false with NO_COLOR / --no-color: mono only
  bool readonly = false;
  std::size_t signal_index = 0;            // in signal_choices()
  std::optional<SignalTarget> target;      // what the confirmation is about
  std::string message;                     // shown in the footer until the next key
  bool message_is_error = false;
};

// What handle_key needs to know about the screen it acts on.
struct KeyContext {
  std::vector<GpuKey> gpus;                 // in display order
  std::vector<ProcessView> visible;         // the process list as shown (filtered, sorted)
  std::size_t process_rows = 10;            // rows the list shows (page size)
  bool multi_host = false;
};

enum class Effect { None, Quit, SaveConfig, SendSignal };

// What a mouse click landed on (frame.hpp's hits).
enum class HitKind { Gpu, Process, ColumnTitle };

struct KeyOutcome {
  Effect effect = Effect::None;
  SignalTarget signal;  // with SendSignal
};

KeyOutcome handle_key(UiState& state, int key, const KeyContext& context);

// A click on a GPU (VALUE: index in CONTEXT.gpus) selects it (again: all GPUs), on a process row
// (VALUE: row) selects it, on a column title (VALUE: Column) sorts by it (again: reverses).
void handle_click(UiState& state, HitKind kind, std::size_t value, const KeyContext& context);
// The mouse wheel: moves the process cursor by STEP rows.
void handle_wheel(UiState& state, int step, const KeyContext& context);

// After the list changed (refresh, new sort or filter): keeps the cursor on the same PID when it
// is still listed, else clamps it; keeps it in view of ROWS rows.
void follow_cursor(UiState& state, const std::vector<ProcessView>& visible, std::size_t rows);

}  // namespace gpuwatch::tui
