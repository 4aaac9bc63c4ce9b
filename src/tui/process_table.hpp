#pragma once
// The process list: its columns, sorting by any of them, the `/` regex filter and the GPU
// selection. Pure. An absent value sorts after every present one, whichever the direction.
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "tui/model.hpp"

namespace gpuwatch::tui {

enum class Column { Host, Pid, User, Gpu, Type, GpuPercent, GpuMemory, CpuPercent, Rss, Time, Owner, Command };

struct ColumnSpec {
  Column column;
  std::string_view title;  // header text
  std::string_view key;    // config file and --sort name
  int width;               // 0: takes the rest of the line (Command)
  bool right;              // numbers are right-aligned
  bool descending;         // the natural direction when first chosen (biggest first)
  int min_screen_width;    // shown only on screens at least this wide (0: always)
};

// Every column in display order (Host only shows with several hosts, Owner only when some process
// has a container, pod or job).
const std::vector<ColumnSpec>& process_columns();
const ColumnSpec& column_spec(Column column);
std::optional<Column> column_from_key(std::string_view key);
// The next/previous sortable column (the `s`/`S` keys), skipping Host unless WITH_HOST.
Column next_column(Column column, bool with_host, int step = 1);

// The cell text of one process in COLUMN. A host process of the tree view has blank GPU cells,
// and its command is indented by its depth.
std::string process_cell(const ProcessView& process, Column column);

// Orders PROCESSES by COLUMN (ties: by PID), absent values last.
void sort_processes(std::vector<ProcessView>& processes, Column column, bool descending);

// The `/` filter: an ECMAScript regular expression, case-insensitive, matched anywhere in
// "PID USER COMMAND" (so "^1473" finds a PID, "alice" a user, "train\\.py" a command).
class ProcessFilter {
 public:
  // Empty PATTERN clears the filter. A bad pattern leaves the filter as it was and returns why.
  std::optional<std::string> set(const std::string& pattern);
  const std::string& pattern() const { return pattern_; }
  bool active() const { return !pattern_.empty(); }
  bool matches(const ProcessView& process) const;

 private:
  std::string pattern_;
  std::regex regex_;
};

// A GPU among those of every host.
struct GpuKey {
  std::string host;  // "" local
  unsigned index = 0;
  bool operator==(const GpuKey&) const = default;
};

// What the list shows: the processes of the selected GPU (all when GPU is nullopt) that match
// FILTER, sorted.
std::vector<ProcessView> visible_processes(const std::vector<ProcessView>& processes, const std::optional<GpuKey>& gpu,
                                           const ProcessFilter& filter, Column sort, bool descending);

}  // namespace gpuwatch::tui
