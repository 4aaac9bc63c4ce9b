#pragma once
// How wide the text views may be: the terminal's width (ioctl TIOCGWINSZ) when stdout is a
// terminal; otherwise $COLUMNS when it is a positive number (for scripts and tests: `COLUMNS=80
// gpuwatch | less`); otherwise 0, meaning no limit (a pipe or file gets the wide form, uncut).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::terminal {

// Pure: TERMINAL_COLUMNS is the terminal's width (nullopt: not a terminal or unknown),
// COLUMNS_ENV the value of $COLUMNS (nullptr: unset).
std::size_t choose_columns(std::optional<std::size_t> terminal_columns, const char* columns_env);

// Columns TEXT takes on screen: UTF-8 code points (°, └ and ▼ are one column each). No escapes.
std::size_t display_width(std::string_view text);
// TEXT cut to at most WIDTH columns, ending in "..." when cut (WIDTH 0: unchanged).
std::string fit(std::string_view text, std::size_t width);

// choose_columns() with the real terminal (when STDOUT_IS_TERMINAL) and environment.
std::size_t output_columns(bool stdout_is_terminal);

}  // namespace gpuwatch::terminal
