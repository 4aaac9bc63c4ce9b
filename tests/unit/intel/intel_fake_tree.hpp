#pragma once
// A fake host root for the Intel backend's tests: an i915 or xe card's sysfs, hwmon and fdinfo
// files in a temporary folder (the contract's paths, vendor_contract.md), removed at the end,
// and a simulated tree whose clock the tests move (power and utilization are rates).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "backend/simulated_tree.hpp"

namespace intel_fake_tree {

namespace fs = std::filesystem;

class FakeRoot {
 public:
  FakeRoot() {
    std::string pattern = (fs::temp_directory_path() / "gpuwatch-intel-XXXXXX").string();
    root_ = mkdtemp(pattern.data());
  }
  ~FakeRoot() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;

  const std::string& path() const { return root_; }

  void write(const std::string& relative, const std::string& text) const {
    const fs::path p = fs::path(root_) / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void remove(const std::string& relative) const {
    std::error_code ec;
    fs::remove_all(fs::path(root_) / relative, ec);
  }

  // cardN bound to DRIVER ("i915", "xe", "amdgpu") at SLOT with PCI_ID.
  void card(unsigned n, const std::string& driver, const std::string& slot, const std::string& pci_id) const {
    const std::string dev = "sys/class/drm/card" + std::to_string(n) + "/device/";
    write(dev + "uevent", "DRIVER=" + driver + "\nPCI_CLASS=30000\nPCI_ID=" + pci_id + "\nPCI_SLOT_NAME=" + slot + "\n");
    write(dev + "vendor", "0x" + lower(pci_id.substr(0, 4)) + "\n");
    write(dev + "device", "0x" + lower(pci_id.substr(5)) + "\n");
  }

  // An i915 card with frequencies and hwmon (power, energy, fan).
  void i915_card(unsigned n, const std::string& slot, const std::string& pci_id) const {
    card(n, "i915", slot, pci_id);
    const std::string c = "sys/class/drm/card" + std::to_string(n) + "/";
    write(c + "gt_act_freq_mhz", "1300\n");
    write(c + "gt_cur_freq_mhz", "1350\n");
    write(c + "gt_max_freq_mhz", "2400\n");
    write(c + "gt_RP0_freq_mhz", "2400\n");
    const std::string h = c + "device/hwmon/hwmon3/";
    write(h + "name", "i915\n");
    write(h + "power1_max", "190000000\n");
    write(h + "power1_rated_max", "225000000\n");
    write(h + "energy1_input", "1000000000\n");
    write(h + "fan1_input", "1200\n");
  }

  // An xe card with frequencies and hwmon (power, energy, package temperature).
  void xe_card(unsigned n, const std::string& slot, const std::string& pci_id) const {
    card(n, "xe", slot, pci_id);
    const std::string d = "sys/class/drm/card" + std::to_string(n) + "/device/";
    write(d + "tile0/gt0/freq0/act_freq", "1550\n");
    write(d + "tile0/gt0/freq0/cur_freq", "1600\n");
    write(d + "tile0/gt0/freq0/max_freq", "1600\n");
    write(d + "tile0/gt0/freq0/rp0_freq", "1600\n");
    const std::string h = d + "hwmon/hwmon5/";
    write(h + "name", "xe\n");
    write(h + "power1_max", "600000000\n");
    write(h + "power1_rated_max", "600000000\n");
    write(h + "energy1_input", "5000000\n");
    write(h + "temp2_input", "61500\n");
  }

  void fdinfo(unsigned pid, unsigned fd, const std::string& text) const {
    write("proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd), text);
  }

 private:
  static std::string lower(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  }
  std::string root_;
};

// The simulator's side, as far as the backend sees it: a clock the test sets.
class FakeSimulatedTree final : public gpuwatch::backend::SimulatedTree {
 public:
  void refresh() override { ++refreshes; }
  void set_clock(long long unix_ms) override { clock_ms = unix_ms; }
  std::optional<double> time_scale() const override { return scale; }

  int refreshes = 0;
  long long clock_ms = 0;
  double scale = 1.0;
};

inline std::string i915_fdinfo(const std::string& pdev, unsigned client, unsigned long long render_ns,
                               unsigned long long compute_ns, unsigned long long local_kib) {
  return "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1015\ndrm-driver:\ti915\ndrm-pdev:\t" + pdev +
         "\ndrm-client-id:\t" + std::to_string(client) + "\ndrm-engine-render:\t" + std::to_string(render_ns) +
         " ns\ndrm-engine-copy:\t0 ns\ndrm-engine-video:\t0 ns\ndrm-engine-compute:\t" + std::to_string(compute_ns) +
         " ns\ndrm-total-local0:\t" + std::to_string(local_kib) + " KiB\ndrm-resident-local0:\t" +
         std::to_string(local_kib) + " KiB\n";
}

inline std::string xe_fdinfo(const std::string& pdev, unsigned client, unsigned long long ccs_cycles,
                             unsigned long long total_cycles, unsigned long long vram_kib) {
  return "pos:\t0\nflags:\t02100002\ndrm-driver:\txe\ndrm-pdev:\t" + pdev + "\ndrm-client-id:\t" + std::to_string(client) +
         "\ndrm-cycles-rcs:\t0\ndrm-total-cycles-rcs:\t" + std::to_string(total_cycles) + "\ndrm-cycles-ccs:\t" +
         std::to_string(ccs_cycles) + "\ndrm-total-cycles-ccs:\t" + std::to_string(total_cycles) +
         "\ndrm-total-vram0:\t" + std::to_string(vram_kib) + " KiB\ndrm-resident-vram0:\t" + std::to_string(vram_kib) +
         " KiB\n";
}

}  // namespace intel_fake_tree
