#include "query/devices.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <sstream>

namespace gpuwatch::query {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "00000000:01:00.0" matches "01:00.0", "0000:01:00.0" and itself.
bool bus_id_matches(const std::string& full, const std::string& wanted) {
  std::string f = upper(full), w = upper(wanted);
  if (f == w) return true;
  auto f_tail = f.substr(f.find(':') + 1), w_tail = w.find(':') != w.rfind(':') ? w.substr(w.find(':') + 1) : w;
  return f_tail == w_tail;
}

}  // namespace

core::Result<std::vector<unsigned>> select_devices(const std::string& ids, const core::Snapshot& identity) {
  std::vector<unsigned> out;
  std::stringstream in(ids);
  std::string id;
  while (std::getline(in, id, ',')) {
    id.erase(std::remove_if(id.begin(), id.end(), [](unsigned char c) { return std::isspace(c) != 0; }), id.end());
    if (id.empty()) continue;
    std::optional<unsigned> match;
    for (const auto& d : identity.devices) {
      auto uuid = d.get(core::FieldId::Uuid).as_string();
      auto bus = d.get(core::FieldId::PciBusId).as_string();
      if ((all_digits(id) && std::to_string(d.index) == id) || (uuid && upper(*uuid) == upper(id)) ||
          (bus && !all_digits(id) && bus_id_matches(*bus, id))) {
        match = d.index;
        break;
      }
    }
    if (!match) return core::make_error(fmt::format("No GPU matches the id \"{}\" (give an index, a UUID or a PCI bus id).", id));
    if (std::find(out.begin(), out.end(), *match) == out.end()) out.push_back(*match);
  }
  if (out.empty()) return core::make_error("-i: no GPU ids given");
  return out;
}

}  // namespace gpuwatch::query
