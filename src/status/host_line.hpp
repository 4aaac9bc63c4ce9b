#pragma once
// The host line of `gpuwatch status` (issue 25): what the host was doing while the GPUs were
// sampled, one line after the header, and the "host" object of its JSON. Pure.
//   host  CPU 23 % (iowait 1 %, steal 0 %, PSI 2 %) | mem 41 % avail, swap 0 pg/s | disk R 12 MB/s W 3 MB/s, busy 4 % | net RX 1.2 MB/s TX 300 kB/s | IB RX 2.1 GB/s TX 2.0 GB/s
// A part whose values are all absent is left out (IB on a machine without InfiniBand); in JSON
// an absent value is null, never 0.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "host_signals/host_sample.hpp"
#include "terminal/severity.hpp"
#include "terminal/style.hpp"

namespace gpuwatch::status {

// COLUMNS: the width to fit (StatusContext::columns); under kWideColumns the compact form
// ("host  CPU 23% io 1% | mem 41% avail | disk R 12M W 3.0M | net RX 1.2M TX 300k", bytes/s),
// leaving out the parts that do not fit from the right; 0: the wide form, never cut.
std::string render_host_line(const host_signals::HostSample& host, const terminal::Style& style, std::size_t columns = 0);

nlohmann::ordered_json host_json(const host_signals::HostSample& host);

// The line's parts left to right (CPU, mem, disk, net, IB), those with nothing present left out;
// BRIEF: the compact form. `top` keeps them from one sample to the next and fits them per frame.
std::vector<std::string> host_line_parts(const host_signals::HostSample& host, const terminal::Style& style, bool brief);

// How many of PARTS, from the left, fit in COLUMNS when joined by kHostPartSeparator after a label
// of LABEL_COLUMNS: all of them when they fit, else the most that do, never under 1 (the one
// left is cut by the caller, never wrapped). PARTS may hold colour escapes (not counted).
inline constexpr std::string_view kHostPartSeparator = " | ";
std::size_t host_parts_that_fit(const std::vector<std::string>& parts, std::size_t label_columns, std::size_t columns);

// The CPU busy share's severity (Warn >= 70 %, Critical >= 90 %; Ok when absent).
terminal::Severity host_cpu_severity(const std::optional<double>& busy_percent);

// A byte rate as people read it: "0 B/s", "812 B/s", "12 kB/s", "1.2 MB/s", "3.4 GB/s" (powers of 1000).
std::string byte_rate_text(double bytes_per_s);

}  // namespace gpuwatch::status
