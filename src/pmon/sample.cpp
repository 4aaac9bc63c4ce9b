#include "pmon/sample.hpp"

#include "terminal/units.hpp"

namespace gpuwatch::pmon {

std::vector<PmonRow> pmon_rows(const core::Snapshot& snapshot, const ProcessNameLookup& lookup) {
  std::vector<PmonRow> rows;
  for (const auto& device : snapshot.devices) {
    if (device.state != core::DeviceState::Ok || device.processes.empty()) {
      PmonRow empty;
      empty.gpu = device.index;
      rows.push_back(empty);
      continue;
    }
    for (const auto& process : device.processes) {
      PmonRow row;
      row.gpu = device.index;
      row.pid = process.pid;
      row.type = process.type;
      row.sm_pct = terminal::whole_percent(process.sm_ratio);
      row.mem_pct = terminal::whole_percent(process.memory_ratio);
      row.enc_pct = terminal::whole_percent(process.encoder_ratio);
      row.dec_pct = terminal::whole_percent(process.decoder_ratio);
      row.fb_mb = terminal::whole_mib(process.used_memory_bytes);
      // NVML's name is the program's path; pmon shows its base name.
      row.command = process.name.substr(process.name.rfind('/') == std::string::npos ? 0 : process.name.rfind('/') + 1);
      if (row.command.empty() && lookup) row.command = lookup(process.pid).value_or("");
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace gpuwatch::pmon
