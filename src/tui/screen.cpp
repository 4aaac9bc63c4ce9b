#include "tui/screen.hpp"

#include <curses.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <langinfo.h>

namespace gpuwatch::tui {
namespace {

// A curses colour pair per terminal::Color (pair number = 1 + its enum value).
short curses_color(terminal::Color c) {
  using terminal::Color;
  switch (c) {
    case Color::Red: case Color::BoldRed: return COLOR_RED;
    case Color::Green: case Color::BoldGreen: return COLOR_GREEN;
    case Color::Yellow: case Color::BoldYellow: return COLOR_YELLOW;
    case Color::Blue: case Color::BoldBlue: return COLOR_BLUE;
    case Color::Magenta: case Color::BoldMagenta: return COLOR_MAGENTA;
    case Color::Cyan: return COLOR_CYAN;
    case Color::Gray: return COLORS >= 16 ? 8 : COLOR_WHITE;
    default: return -1;
  }
}

constexpr int kColorCount = static_cast<int>(terminal::Color::Gray) + 1;

// A terminfo string capability without its padding (`$<5>`: curses' tputs would wait, we write
// the bytes); empty when the terminal lacks it.
std::string capability(const char* name) {
  const char* s = tigetstr(name);
  if (s == nullptr || s == reinterpret_cast<const char*>(-1)) return {};
  std::string out;
  for (const char* p = s; *p != 0; ++p) {
    if (p[0] == '$' && p[1] == '<') {
      const char* close = std::strchr(p, '>');
      if (close != nullptr) {
        p = close;
        continue;
      }
    }
    out += *p;
  }
  return out;
}

std::string parameterized(const std::string& cap, int a, int b = 0) {
  if (cap.empty()) return {};
  const char* s = tiparm(cap.c_str(), a, b);
  return s == nullptr ? std::string() : std::string(s);
}

// The escape sequences of EFFECTIVE's tones, once per theme: curses' colour pairs are the
// foreground on the terminal's default background (use_default_colors), so a tone is a reset,
// its attributes and its foreground.
TerminalCodes terminal_codes(Theme effective, bool color) {
  TerminalCodes codes;
  codes.reset = capability("sgr0");
  const std::string op = color ? capability("op") : std::string();
  const std::string bold = capability("bold"), reverse = capability("rev"), dim = capability("dim");
  const std::string setaf = color ? capability("setaf") : std::string();
  for (int t = 0; t < kToneCount; ++t) {
    const ToneStyle style = tone_style(effective, static_cast<Tone>(t));
    std::string& s = codes.tone[static_cast<std::size_t>(t)];
    s = codes.reset + op;
    if (style.bold) s += bold;
    if (style.reverse) s += reverse;
    if (style.dim) s += dim;
    if (color && style.color != terminal::Color::Plain) s += parameterized(setaf, curses_color(style.color));
  }
  const std::string cup = capability("cup");
  const bool ecma48 = cup.empty() || (parameterized(cup, 0, 0) == "\x1b[1;1H" && parameterized(cup, 12, 34) == "\x1b[13;35H");
  if (!ecma48) codes.cursor = [cup](int y, int x) { return parameterized(cup, y, x); };
  codes.skip_last_cell = tigetflag("am") > 0 && tigetflag("xenl") <= 0;
  return codes;
}

void write_all(const std::string& bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(STDOUT_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the terminal is gone: the next read of input says so
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Set by SIGCONT: after a suspend (Ctrl-Z, fg) curses repaints its own picture of the screen,
// which is blank (it never draws the frame), so the next frame is written whole.
std::atomic<bool> g_continued{false};
void on_continue(int) { g_continued = true; }

int translate(int ch) {
  switch (ch) {
    case KEY_UP: return key::Up;
    case KEY_DOWN: return key::Down;
    case KEY_LEFT: return key::Left;
    case KEY_RIGHT: return key::Right;
    case KEY_PPAGE: return key::PageUp;
    case KEY_NPAGE: return key::PageDown;
    case KEY_HOME: return key::Home;
    case KEY_END: return key::End;
    case KEY_BACKSPACE: return key::Backspace;
    case KEY_BTAB: return key::BackTab;
    case KEY_ENTER: return key::Enter;
    case KEY_RESIZE: return key::Resize;
    case KEY_F(1): return key::F1;
    case KEY_F(2): return key::F2;
    case KEY_F(5): return key::F5;
    case KEY_F(6): return key::F6;
    case KEY_F(9): return key::F9;
    case KEY_F(10): return key::F10;
    case KEY_F(12): return key::F12;
    default: return ch;
  }
}

}  // namespace

core::Result<std::unique_ptr<Screen>> Screen::open(bool color) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    return core::make_error("top needs a terminal (stdin and stdout); for a script use `gpuwatch status -i 1 --jsonl`");
  }
  // UTF-8 for the bars and boxes: the user's locale, else C.UTF-8 when the user's is not UTF-8.
  std::setlocale(LC_ALL, "");
  if (std::strcmp(nl_langinfo(CODESET), "UTF-8") != 0) std::setlocale(LC_ALL, "C.UTF-8");
  setenv("ESCDELAY", "25", 0);  // Esc answers at once (curses waits 1 s for an escape sequence by default)
  std::unique_ptr<Screen> screen(new Screen());
  SCREEN* s = newterm(nullptr, stdout, stdin);
  if (s == nullptr) {
    const char* term = std::getenv("TERM");
    return core::make_error(std::string("cannot start the terminal UI for TERM=") + (term ? term : "(unset)"));
  }
  screen->screen_ = s;
  set_term(s);
  // ncurses 6.4 leaves a newterm() screen in its "initial" state until the program comes back from
  // endwin(), and in that state it flushes its output buffer at every cursor move: one write(2) to
  // the terminal per changed run of cells (~70 a refresh on 8 GPUs, each a trip through the pty
  // driver), instead of one per refresh. Leaving and resuming once, before anything is drawn,
  // puts it in its running state (one write per refresh; nvtop still pays the 70).
  refresh();
  endwin();
  refresh();
  // No check for typed-ahead input during an update (a poll(2) every few lines): a frame is sent
  // in well under a millisecond, and a key is answered right after it.
  typeahead(-1);
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  curs_set(0);
  struct sigaction on_cont {};
  on_cont.sa_handler = on_continue;
  sigemptyset(&on_cont.sa_mask);
  on_cont.sa_flags = SA_RESTART;
  sigaction(SIGCONT, &on_cont, nullptr);
  mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, nullptr);
  mouseinterval(0);
  screen->color_ = color && has_colors();
  if (screen->color_) {
    start_color();
    use_default_colors();
    for (int c = 0; c < kColorCount; ++c) {
      short fg = curses_color(static_cast<terminal::Color>(c));
      init_pair(static_cast<short>(1 + c), fg, -1);
    }
  }
  return screen;
}

Screen::~Screen() {
  signal(SIGCONT, SIG_DFL);
  if (screen_ != nullptr) {
    endwin();
    delscreen(static_cast<SCREEN*>(screen_));
  }
}

int Screen::width() const { return COLS; }
int Screen::height() const { return LINES; }

void Screen::draw(const Frame& frame, Theme theme) {
  const Theme effective = color_ ? theme : Theme::Mono;
  const bool full = effective != drawn_theme_ || COLS != drawn_width_ || LINES != drawn_height_ ||
                    drawn_.size() != frame.lines.size() || g_continued.exchange(false);
  if (full) {
    // Curses clears the terminal (its own picture of the screen stays blank: it never draws the
    // content, so nothing it does later, a getch's refresh included, writes over ours).
    erase();
    clearok(curscr, TRUE);
    refresh();
    drawn_.assign(frame.lines.size(), Line{});
    cells_.assign(frame.lines.size(), {});
  }
  if (!codes_ || effective != drawn_theme_) codes_ = terminal_codes(effective, color_);
  out_.clear();
  std::optional<Tone> tone;  // after a frame, the terminal is left reset
  for (std::size_t y = 0; y < frame.lines.size() && static_cast<int>(y) < LINES; ++y) {
    if (!full && drawn_[y] == frame.lines[y]) continue;
    drawn_[y] = frame.lines[y];
    line_cells(frame.lines[y], COLS, row_);
    write_row_changes(full ? nullptr : &cells_[y], row_, static_cast<int>(y), static_cast<int>(y) == LINES - 1, *codes_,
                      tone, out_);
    cells_[y].swap(row_);
  }
  drawn_theme_ = effective;
  drawn_width_ = COLS;
  drawn_height_ = LINES;
  if (out_.empty()) return;
  // Left as curses believes it is: attributes reset, the (hidden) cursor at the top left.
  out_ += codes_->reset;
  append_cursor(0, 0, *codes_, out_);
  write_all(out_);
}

std::optional<Input> Screen::next_input(std::chrono::milliseconds wait) {
  timeout(static_cast<int>(std::max<long long>(wait.count(), 0)));
  wint_t ch = 0;
  int kind = get_wch(&ch);
  if (kind == ERR) return std::nullopt;
  Input in;
  if (kind == KEY_CODE_YES) {
    if (ch == KEY_MOUSE) {
      MEVENT event;
      if (getmouse(&event) != OK) return std::nullopt;
      in.x = event.x;
      in.y = event.y;
      if (event.bstate & BUTTON4_PRESSED) in.kind = Input::Kind::WheelUp;
      else if (event.bstate & BUTTON5_PRESSED) in.kind = Input::Kind::WheelDown;
      else if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) in.kind = Input::Kind::Click;
      else return std::nullopt;
      return in;
    }
    in.key = translate(static_cast<int>(ch));
    if (in.key == key::Resize) drawn_.clear();  // curses may have moved or cleared cells: redraw all
    return in;
  }
  in.key = ch == '\r' ? key::Enter : static_cast<int>(ch);
  return in;
}

}  // namespace gpuwatch::tui
