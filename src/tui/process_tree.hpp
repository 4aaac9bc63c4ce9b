#pragma once
// The tree view (the `t` key, as in htop and nvitop): each GPU process under its parent, and the
// host processes above them (a launcher such as torchrun, a shell) as rows without GPU columns, so
// that the workers of one job sit together. Pure: the parents come from /proc readings.
#include <cstdint>
#include <map>
#include <vector>

#include "tui/model.hpp"

namespace gpuwatch::tui {

// At most this many host processes are shown above a GPU process (PID 1 never is).
inline constexpr int kMaxTreeAncestors = 4;

// VISIBLE (already filtered and sorted) as a tree: roots and siblings keep the order of their
// first GPU row in VISIBLE; a GPU process whose parent is another GPU process sits under it; host
// processes from ANCESTORS (by PID, with their parent) become host_only rows. depth says how far
// each row is indented. Remote processes (no parent known) stay flat, as in VISIBLE.
std::vector<ProcessView> process_tree(const std::vector<ProcessView>& visible,
                                      const std::map<std::uint32_t, HostProcess>& ancestors);

// The command column's text in the tree view: indentation and a branch mark before COMMAND.
std::string tree_prefix(int depth);

}  // namespace gpuwatch::tui
