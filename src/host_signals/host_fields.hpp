#pragma once
// The host sample's scalar values by name: the one table that JSON (status's "host" object) and,
// later, the history and the live view read. Keys carry their unit; absent values stay absent.
#include <optional>
#include <string_view>
#include <vector>

#include "host_signals/host_sample.hpp"

namespace gpuwatch::host_signals {

struct HostField {
  std::string_view key;                              // "cpu_busy_percent"
  std::optional<double> (*get)(const HostSample&);  // absent: not known
  void (*set)(HostSample&, std::optional<double>);  // the way back (the history reading a row); a
                                                     // negative or absent value leaves a count absent
  bool whole = false;                                // a count of bytes: written as an integer
};

const std::vector<HostField>& host_fields();

}  // namespace gpuwatch::host_signals
