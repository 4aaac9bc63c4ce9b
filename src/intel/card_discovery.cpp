#include <algorithm>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>

#include "intel/intel_card.hpp"
#include "intel/sysfs_file.hpp"

namespace gpuwatch::intel {
namespace {

namespace fs = std::filesystem;

// "card12" -> 12; connectors ("card0-DP-1") and others -> nullopt.
std::optional<unsigned> card_number_of(std::string_view name) {
  if (name.size() <= 4 || name.substr(0, 4) != "card") return std::nullopt;
  unsigned n = 0;
  const char* first = name.data() + 4;
  const char* last = name.data() + name.size();
  const auto [end, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || end != last) return std::nullopt;
  return n;
}

std::optional<std::uint32_t> hex_of(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return v;
}

// The hwmon directory of the device whose `name` is the driver's.
std::string find_hwmon(const std::string& device_dir, KernelDriver driver) {
  std::error_code ec;
  std::vector<std::string> dirs;
  for (const auto& entry : fs::directory_iterator(device_dir + "/hwmon", ec)) {
    dirs.push_back(entry.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    auto name = read_text_file(dir + "/name");
    if (name.value && *name.value == to_string(driver)) return dir;
  }
  return "";
}

std::string existing(const std::string& path) { return path_exists(path) ? path : std::string(); }

void fill_paths(IntelCard& card) {
  const std::string device = card.card_dir + "/device";
  if (card.driver == KernelDriver::I915) {
    // Card level first; multi-tile boards have only gt/gt0/rps_* on newer kernels.
    const auto pick = [&](const char* card_level, const char* gt_level) {
      std::string path = existing(card.card_dir + "/" + card_level);
      return path.empty() ? existing(card.card_dir + "/gt/gt0/" + gt_level) : path;
    };
    card.act_freq = pick("gt_act_freq_mhz", "rps_act_freq_mhz");
    card.cur_freq = pick("gt_cur_freq_mhz", "rps_cur_freq_mhz");
    card.max_freq = pick("gt_max_freq_mhz", "rps_max_freq_mhz");
    card.rp0_freq = pick("gt_RP0_freq_mhz", "rps_RP0_freq_mhz");
  } else {
    const std::string freq = device + "/tile0/gt0/freq0/";
    card.act_freq = existing(freq + "act_freq");
    card.cur_freq = existing(freq + "cur_freq");
    card.max_freq = existing(freq + "max_freq");
    card.rp0_freq = existing(freq + "rp0_freq");
  }
  card.hwmon_dir = find_hwmon(device, card.driver);
  if (card.hwmon_dir.empty()) return;
  card.power_max = existing(card.hwmon_dir + "/power1_max");
  card.power_rated_max = existing(card.hwmon_dir + "/power1_rated_max");
  card.energy = existing(card.hwmon_dir + "/energy1_input");
  if (card.driver == KernelDriver::Xe) card.temperature = existing(card.hwmon_dir + "/temp2_input");
  while (path_exists(fmt::format("{}/fan{}_input", card.hwmon_dir, card.fan_count + 1))) ++card.fan_count;
}

std::optional<IntelCard> card_at(const std::string& card_dir, unsigned number) {
  auto uevent = read_text_file(card_dir + "/device/uevent");
  if (!uevent.value) return std::nullopt;
  const auto driver_name = uevent_value(*uevent.value, "DRIVER");
  if (!driver_name || (*driver_name != "i915" && *driver_name != "xe")) return std::nullopt;
  IntelCard card;
  card.card_number = number;
  card.card_dir = card_dir;
  card.driver = *driver_name == "xe" ? KernelDriver::Xe : KernelDriver::I915;
  if (auto slot = uevent_value(*uevent.value, "PCI_SLOT_NAME")) {
    card.slot = std::string(*slot);
    if (auto address = parse_pci_address(card.slot)) card.address = *address;
  }
  if (auto pci_id = uevent_value(*uevent.value, "PCI_ID")) {  // "8086:56A0"
    const auto colon = pci_id->find(':');
    if (colon != std::string_view::npos) {
      card.vendor_id = hex_of(pci_id->substr(0, colon)).value_or(card.vendor_id);
      card.device_id = hex_of(pci_id->substr(colon + 1)).value_or(0);
    }
  }
  if (card.device_id == 0) {
    auto text = read_text_file(card_dir + "/device/device");
    if (text.value) card.device_id = hex_of(*text.value).value_or(0);
  }
  fill_paths(card);
  return card;
}

}  // namespace

const char* to_string(KernelDriver driver) { return driver == KernelDriver::Xe ? "xe" : "i915"; }

std::optional<PciAddress> parse_pci_address(std::string_view slot) {
  // domain:bus:device.function, all hex.
  PciAddress a;
  std::uint32_t* parts[] = {&a.domain, &a.bus, &a.device, &a.function};
  const char separators[] = {':', ':', '.', '\0'};
  const char* p = slot.data();
  const char* end = slot.data() + slot.size();
  for (int i = 0; i < 4; ++i) {
    const auto [next, ec] = std::from_chars(p, end, *parts[i], 16);
    if (ec != std::errc() || next == p) return std::nullopt;
    p = next;
    if (separators[i] == '\0') return p == end ? std::optional<PciAddress>(a) : std::nullopt;
    if (p == end || *p != separators[i]) return std::nullopt;
    ++p;
  }
  return std::nullopt;
}

std::string slot_name(const PciAddress& a) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", a.domain, a.bus, a.device, a.function);
}

std::string nvml_bus_id(const PciAddress& a) {
  return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", a.domain, a.bus, a.device, a.function);
}

std::string under_root(const std::string& root, const std::string& path) {
  if (root.empty() || root == "/") return path;
  return (root.back() == '/' ? root.substr(0, root.size() - 1) : root) + path;
}

std::vector<IntelCard> discover_intel_cards(const std::string& root) {
  const std::string drm = under_root(root, "/sys/class/drm");
  std::vector<std::pair<unsigned, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(drm, ec)) {
    if (auto n = card_number_of(entry.path().filename().string())) found.emplace_back(*n, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<IntelCard> cards;
  for (const auto& [number, dir] : found) {
    if (auto card = card_at(dir, number)) cards.push_back(std::move(*card));
  }
  return cards;
}

}  // namespace gpuwatch::intel
