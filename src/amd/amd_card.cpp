#include "amd/amd_card.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "amd/sysfs_file.hpp"

namespace gpuwatch::amd {
namespace {

namespace fs = std::filesystem;

// N of "cardN" (digits only), nullopt for anything else ("card0-DP-1", "renderD128").
std::optional<unsigned> card_number_of(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "card") != 0) return std::nullopt;
  unsigned n = 0;
  const char* begin = name.data() + 4;
  const char* end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(begin, end, n);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return n;
}

// The hwmon folder of DEVICE_DIR whose name file says "amdgpu" ("" when none).
std::string amdgpu_hwmon_dir(const std::string& device_dir) {
  std::error_code ec;
  std::vector<std::string> candidates;
  for (fs::directory_iterator it(device_dir + "/hwmon", ec), end; !ec && it != end; it.increment(ec)) {
    candidates.push_back(it->path().string());
  }
  std::sort(candidates.begin(), candidates.end());
  for (const auto& dir : candidates) {
    const auto name = read_text_file(dir + "/name");
    if (name && trimmed(*name) == "amdgpu") return dir;
  }
  return {};
}

void fill_paths(AmdCard& card) {
  const auto dev = [&](CardFile f, const char* name) { card.paths[static_cast<std::size_t>(f)] = card.device_dir + "/" + name; };
  const auto hw = [&](CardFile f, const char* name) {
    card.paths[static_cast<std::size_t>(f)] = card.hwmon_dir.empty() ? std::string() : card.hwmon_dir + "/" + name;
  };
  using F = CardFile;
  dev(F::ProductName, "product_name");
  dev(F::ProductNumber, "product_number");
  dev(F::SerialNumber, "serial_number");
  dev(F::UniqueId, "unique_id");
  dev(F::GpuBusyPercent, "gpu_busy_percent");
  dev(F::MemBusyPercent, "mem_busy_percent");
  dev(F::VramTotal, "mem_info_vram_total");
  dev(F::VramUsed, "mem_info_vram_used");
  dev(F::DpmSclk, "pp_dpm_sclk");
  dev(F::DpmMclk, "pp_dpm_mclk");
  dev(F::CurrentLinkSpeed, "current_link_speed");
  dev(F::CurrentLinkWidth, "current_link_width");
  dev(F::MaxLinkSpeed, "max_link_speed");
  dev(F::MaxLinkWidth, "max_link_width");
  dev(F::GpuMetrics, "gpu_metrics");
  dev(F::RasUmc, "ras/umc_err_count");
  dev(F::RasGfx, "ras/gfx_err_count");
  dev(F::PcieReplayCount, "pcie_replay_count");
  dev(F::SubsystemVendor, "subsystem_vendor");
  dev(F::SubsystemDevice, "subsystem_device");
  dev(F::Uevent, "uevent");
  hw(F::TempEdge, "temp1_input");
  hw(F::TempJunction, "temp2_input");
  hw(F::TempMem, "temp3_input");
  hw(F::TempEdgeCrit, "temp1_crit");
  hw(F::TempEdgeEmergency, "temp1_emergency");
  hw(F::TempJunctionCrit, "temp2_crit");
  hw(F::TempJunctionEmergency, "temp2_emergency");
  hw(F::TempMemCrit, "temp3_crit");
  hw(F::PowerAverage, "power1_average");
  hw(F::PowerInput, "power1_input");
  hw(F::PowerCap, "power1_cap");
  hw(F::PowerCapMax, "power1_cap_max");
  hw(F::PowerCapMin, "power1_cap_min");
  hw(F::PowerCapDefault, "power1_cap_default");
  hw(F::FanInput, "fan1_input");
  hw(F::Pwm, "pwm1");
  hw(F::PwmMax, "pwm1_max");
  hw(F::EnergyInput, "energy1_input");
}

}  // namespace

std::string under_root(const std::string& root, const std::string& path) {
  if (root.empty() || root == "/") return path;
  return (root.back() == '/' ? root.substr(0, root.size() - 1) : root) + path;
}

std::vector<AmdCard> discover_amd_cards(const std::string& root) {
  const std::string drm = under_root(root, "/sys/class/drm");
  std::vector<std::pair<unsigned, std::string>> cards;
  std::error_code ec;
  for (fs::directory_iterator it(drm, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (const auto n = card_number_of(name)) cards.emplace_back(*n, it->path().string());
  }
  std::sort(cards.begin(), cards.end());
  std::vector<AmdCard> out;
  for (const auto& [n, dir] : cards) {
    const std::string device_dir = dir + "/device";
    const auto uevent_text = read_text_file(device_dir + "/uevent");
    if (!uevent_text) continue;
    const Uevent uevent = parse_uevent(*uevent_text);
    if (uevent.driver != "amdgpu") continue;
    AmdCard card;
    card.card_number = n;
    card.device_dir = device_dir;
    card.slot = uevent.slot;
    card.address = parse_pci_slot(uevent.slot);
    if (uevent.vendor_id && uevent.device_id) {
      card.vendor_id = *uevent.vendor_id;
      card.device_id = *uevent.device_id;
    } else {
      const auto vendor = read_text_file(device_dir + "/vendor"), device = read_text_file(device_dir + "/device");
      card.vendor_id = static_cast<std::uint32_t>(vendor ? parse_hex(*vendor).value_or(0) : 0);
      card.device_id = static_cast<std::uint32_t>(device ? parse_hex(*device).value_or(0) : 0);
    }
    card.hwmon_dir = amdgpu_hwmon_dir(device_dir);
    fill_paths(card);
    out.push_back(std::move(card));
  }
  return out;
}

}  // namespace gpuwatch::amd
