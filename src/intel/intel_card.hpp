#pragma once
// One Intel GPU as the kernel shows it: a /sys/class/drm/cardN bound to i915 or xe, its PCI
// address and ids, and the paths of the files read at every sample (built once, so a sample
// only opens and reads them). Found by discover_intel_cards under a root ("/" on a real machine).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::intel {

enum class KernelDriver : std::uint8_t { I915, Xe };
const char* to_string(KernelDriver driver);  // "i915", "xe"

struct PciAddress {
  std::uint32_t domain = 0, bus = 0, device = 0, function = 0;
  bool operator==(const PciAddress&) const = default;
};
// "0000:03:00.0" (the kernel's PCI_SLOT_NAME; lower hex) -> address, or nullopt.
std::optional<PciAddress> parse_pci_address(std::string_view slot);
// The kernel's spelling, "0000:03:00.0".
std::string slot_name(const PciAddress& address);
// NVML's spelling of pci.bus_id, "00000000:03:00.0".
std::string nvml_bus_id(const PciAddress& address);

struct IntelCard {
  unsigned card_number = 0;  // N of cardN
  KernelDriver driver = KernelDriver::I915;
  std::string slot;          // PCI_SLOT_NAME, "0000:03:00.0"
  PciAddress address;
  std::uint32_t vendor_id = 0x8086, device_id = 0;
  std::string card_dir;      // ROOT/sys/class/drm/cardN
  std::string hwmon_dir;     // ROOT/.../device/hwmon/hwmonK whose name is i915 or xe; "" when none

  // The files of each sample ("" when the driver has none).
  std::string act_freq, cur_freq, max_freq, rp0_freq;  // MHz
  std::string power_max, power_rated_max, energy;      // hwmon: µW, µW, µJ
  std::string temperature;                             // hwmon (xe temp2_input): m°C
  unsigned fan_count = 0;                              // hwmon fanK_input files
};

// Every cardN (not connectors, not renderD*) whose device/uevent says DRIVER=i915 or
// DRIVER=xe under ROOT, in the order of N. Never fails: no card is an empty list.
std::vector<IntelCard> discover_intel_cards(const std::string& root);

// ROOT joined with an absolute PATH ("/" + "/sys" -> "/sys", "/tmp/r" + "/sys" -> "/tmp/r/sys").
std::string under_root(const std::string& root, const std::string& path);

}  // namespace gpuwatch::intel
