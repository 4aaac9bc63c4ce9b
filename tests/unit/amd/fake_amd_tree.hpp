#pragma once
// A fake host root with amdgpu cards, for the AMD backend's tests and bench: the files of the
// contract (docs/simulator.md) written under a temporary folder, removed at the end.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "amd/gpu_metrics_layout.hpp"
#include "backend/simulated_tree.hpp"

namespace gpuwatch::amd::fake_amd_tree {

namespace fs = std::filesystem;

class FakeAmdTree {
 public:
  FakeAmdTree() {
    static std::atomic<int> counter{0};
    root_ = fs::temp_directory_path() /
            ("gpuwatch-amd-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeAmdTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  FakeAmdTree(const FakeAmdTree&) = delete;
  FakeAmdTree& operator=(const FakeAmdTree&) = delete;

  std::string root() const { return root_.string(); }

  void write(const std::string& relative, const std::string& content) const {
    const fs::path p = root_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
  void remove(const std::string& relative) const { fs::remove_all(root_ / relative); }

  static std::string device(unsigned card) { return "sys/class/drm/card" + std::to_string(card) + "/device/"; }
  static std::string hwmon(unsigned card) { return device(card) + "hwmon/hwmon" + std::to_string(card + 2) + "/"; }

  // A full amdgpu card (an MI300X-like board with every file of the contract).
  void add_amd_card(unsigned card, const std::string& slot) const {
    const std::string d = device(card), h = hwmon(card);
    write(d + "uevent", "DRIVER=amdgpu\nPCI_CLASS=38000\nPCI_ID=1002:74A1\nPCI_SUBSYS_ID=1002:74A1\nPCI_SLOT_NAME=" +
                            slot + "\nMODALIAS=pci:v00001002d000074A1\n");
    write(d + "vendor", "0x1002\n");
    write(d + "device", "0x74a1\n");
    write(d + "product_name", "AMD Instinct MI300X\n");
    write(d + "unique_id", "2D7A3B1C0F9E4A11\n");
    write(d + "serial_number", "PCB123456789\n");
    write(d + "gpu_busy_percent", "42\n");
    write(d + "mem_busy_percent", "17\n");
    write(d + "mem_info_vram_total", "206141652992\n");
    write(d + "mem_info_vram_used", "1073741824\n");
    write(d + "pp_dpm_sclk", "0: 500Mhz\n1: 1500Mhz *\n2: 2100Mhz\n");
    write(d + "pp_dpm_mclk", "0: 900Mhz\n1: 1300Mhz *\n");
    write(d + "current_link_speed", "32.0 GT/s PCIe\n");
    write(d + "current_link_width", "16\n");
    write(d + "max_link_speed", "32.0 GT/s PCIe\n");
    write(d + "max_link_width", "16\n");
    write(d + "ras/umc_err_count", "ue: 1\nce: 5\n");
    write(d + "ras/gfx_err_count", "ue: 0\nce: 2\n");
    write_metrics(card, (std::uint64_t{1} << gpu_metrics::throttler::kTempHotspot) |
                            (std::uint64_t{1} << gpu_metrics::throttler::kPpt0));
    write(h + "name", "amdgpu\n");
    write(h + "temp1_input", "45000\n");
    write(h + "temp1_label", "edge\n");
    write(h + "temp2_input", "71000\n");
    write(h + "temp2_label", "junction\n");
    write(h + "temp3_input", "60000\n");
    write(h + "temp3_label", "mem\n");
    write(h + "temp1_crit", "100000\n");
    write(h + "temp1_emergency", "105000\n");
    write(h + "temp3_crit", "95000\n");
    write(h + "power1_average", "350500000\n");
    write(h + "power1_cap", "750000000\n");
    write(h + "power1_cap_max", "750000000\n");
    write(h + "fan1_input", "1800\n");
    write(h + "pwm1", "153\n");
    write(h + "pwm1_max", "255\n");
    write(h + "energy1_input", "1234500000\n");
  }

  // A gpu_metrics v1_3 table with INDEP as its ASIC-independent throttle status.
  void write_metrics(unsigned card, std::uint64_t indep) const {
    gpu_metrics::GpuMetricsV1_3 m;
    std::memset(&m, 0xFF, sizeof m);
    m.common_header = {static_cast<std::uint16_t>(sizeof m), 1, 3};
    m.temperature_hotspot = 71;
    m.average_socket_power = 350;
    m.energy_accumulator = 65536ull * 1000;  // 1000 J
    m.current_gfxclk = 1480;
    m.indep_throttle_status = indep;
    write(device(card) + "gpu_metrics", std::string(reinterpret_cast<const char*>(&m), sizeof m));
  }

  // One DRM client's fdinfo.
  void add_fdinfo(unsigned pid, unsigned fd, const std::string& driver, const std::string& pdev, unsigned client,
                  unsigned long long gfx_ns, unsigned long long compute_ns, unsigned long long vram_kib) const {
    write("proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd),
          "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1045\ndrm-driver:\t" + driver + "\ndrm-pdev:\t" + pdev +
              "\ndrm-client-id:\t" + std::to_string(client) + "\ndrm-engine-gfx:\t" + std::to_string(gfx_ns) +
              " ns\ndrm-engine-compute:\t" + std::to_string(compute_ns) + " ns\ndrm-memory-vram:\t" +
              std::to_string(vram_kib) + " KiB\ndrm-memory-gtt:\t2048 KiB\n");
  }

 private:
  fs::path root_;
};

// A stand-in for the simulator's tree: counts refreshes, keeps the clock it was given.
class CountingTree final : public backend::SimulatedTree {
 public:
  void refresh() override { ++refreshes; }
  void set_clock(long long unix_ms) override { clock_ms = unix_ms; }
  std::optional<double> time_scale() const override { return 2.0; }
  std::atomic<int> refreshes{0};
  std::atomic<long long> clock_ms{0};
};

}  // namespace gpuwatch::amd::fake_amd_tree
