#pragma once
// An amdgpu card as found under the host root: /sys/class/drm/cardN whose device's uevent says
// DRIVER=amdgpu, with the full path of every file the backend reads worked out once, at
// discovery (the sampling path only opens them).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amd/sysfs_parse.hpp"

namespace gpuwatch::amd {

// The files of one card the backend reads (device/ and its amdgpu hwmon folder).
enum class CardFile : std::uint8_t {
  // device/
  ProductName, ProductNumber, SerialNumber, UniqueId, GpuBusyPercent, MemBusyPercent, VramTotal, VramUsed,
  DpmSclk, DpmMclk, CurrentLinkSpeed, CurrentLinkWidth, MaxLinkSpeed, MaxLinkWidth, GpuMetrics,
  RasUmc, RasGfx, PcieReplayCount, SubsystemVendor, SubsystemDevice, Uevent,
  // device/hwmon/hwmonK/
  TempEdge, TempJunction, TempMem, TempEdgeCrit, TempEdgeEmergency, TempJunctionCrit, TempJunctionEmergency,
  TempMemCrit, PowerAverage, PowerInput, PowerCap, PowerCapMax, PowerCapMin, PowerCapDefault, FanInput, Pwm,
  PwmMax, EnergyInput,
  Count,
};
inline constexpr std::size_t kCardFileCount = static_cast<std::size_t>(CardFile::Count);

struct AmdCard {
  unsigned card_number = 0;  // N of cardN
  std::string device_dir;    // ROOT/sys/class/drm/cardN/device
  std::string hwmon_dir;     // its hwmon folder named "amdgpu" ("" when none)
  std::string slot;          // PCI_SLOT_NAME, lower hex: "0000:c1:00.0" (fdinfo's drm-pdev)
  std::optional<PciAddress> address;
  std::uint32_t vendor_id = 0, device_id = 0;  // PCI ids (uevent's PCI_ID, else device/vendor, device/device)
  std::array<std::string, kCardFileCount> paths;

  const std::string& path(CardFile f) const { return paths[static_cast<std::size_t>(f)]; }
};

// The amdgpu cards under ROOT (ROOT/sys/class/drm/cardN, N ascending; connectors such as
// cardN-DP-1 and render nodes skipped, cards of other drivers skipped).
std::vector<AmdCard> discover_amd_cards(const std::string& root);

// ROOT joined with an absolute path ("/" + "/sys" -> "/sys"; "/tmp/r" + "/sys" -> "/tmp/r/sys").
std::string under_root(const std::string& root, const std::string& path);

}  // namespace gpuwatch::amd
