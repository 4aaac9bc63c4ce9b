#include "amd/sysfs_parse.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "amd/gpu_metrics_layout.hpp"

namespace gpuwatch::amd {
namespace sysfs_parse_test {

TEST(AmdSysfsParse, IntegersAndHex) {
  EXPECT_EQ(parse_integer("1234\n"), 1234);
  EXPECT_EQ(parse_integer("-5"), -5);
  EXPECT_EQ(parse_integer("12abc"), std::nullopt);
  EXPECT_EQ(parse_integer(""), std::nullopt);
  EXPECT_EQ(parse_hex("0x1002\n"), 0x1002u);
  EXPECT_EQ(parse_hex("74A1"), 0x74a1u);
  EXPECT_EQ(parse_hex("0x"), std::nullopt);
}

TEST(AmdSysfsParse, DpmLevelsGiveTheMarkedAndTheHighestLevel) {
  const DpmLevels l = parse_dpm_levels("0: 500Mhz\n1: 1500Mhz *\n2: 2100Mhz\n");
  EXPECT_EQ(l.current_mhz, 1500u);
  EXPECT_EQ(l.max_mhz, 2100u);
  const DpmLevels deep_sleep = parse_dpm_levels("S: 19Mhz *\n0: 500Mhz\n1: 2100Mhz\n");
  EXPECT_EQ(deep_sleep.current_mhz, 19u);
  EXPECT_EQ(deep_sleep.max_mhz, 2100u);
  const DpmLevels none = parse_dpm_levels("0: 500Mhz\n");
  EXPECT_EQ(none.current_mhz, std::nullopt);  // no '*': no current level
}

TEST(AmdSysfsParse, LinkSpeedsAreGenerations) {
  EXPECT_EQ(pcie_generation_of("2.5 GT/s PCIe\n"), 1u);
  EXPECT_EQ(pcie_generation_of("5.0 GT/s PCIe"), 2u);
  EXPECT_EQ(pcie_generation_of("8.0 GT/s PCIe"), 3u);
  EXPECT_EQ(pcie_generation_of("16.0 GT/s PCIe"), 4u);
  EXPECT_EQ(pcie_generation_of("32.0 GT/s PCIe"), 5u);
  EXPECT_EQ(pcie_generation_of("64.0 GT/s PCIe"), 6u);
  EXPECT_EQ(pcie_generation_of("Unknown"), std::nullopt);
  EXPECT_EQ(pcie_generation_of("12.0 GT/s"), std::nullopt);
}

TEST(AmdSysfsParse, RasCountsAndUevent) {
  const auto ras = parse_ras_counts("ue: 3\nce: 11\n");
  ASSERT_TRUE(ras);
  EXPECT_EQ(ras->uncorrectable, 3u);
  EXPECT_EQ(ras->correctable, 11u);
  EXPECT_FALSE(parse_ras_counts("garbage"));
  const Uevent u = parse_uevent("DRIVER=amdgpu\nPCI_ID=1002:74A1\nPCI_SLOT_NAME=0000:c1:00.0\n");
  EXPECT_EQ(u.driver, "amdgpu");
  EXPECT_EQ(u.slot, "0000:c1:00.0");
  EXPECT_EQ(u.vendor_id, 0x1002u);
  EXPECT_EQ(u.device_id, 0x74a1u);
  const auto a = parse_pci_slot(u.slot);
  ASSERT_TRUE(a);
  EXPECT_EQ(nvml_bus_id(*a), "00000000:C1:00.0");
  EXPECT_FALSE(parse_pci_slot("c1:00"));
}

TEST(AmdSysfsParse, FdinfoKeys) {
  const DrmFdinfo f = parse_drm_fdinfo(
      "pos:\t0\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c1:00.0\ndrm-client-id:\t42\n"
      "drm-engine-gfx:\t1000 ns\ndrm-engine-compute:\t2500 ns\ndrm-memory-vram:\t2048 KiB\ndrm-memory-gtt:\t1 MiB\n");
  EXPECT_EQ(f.driver, "amdgpu");
  EXPECT_EQ(f.pdev, "0000:c1:00.0");
  EXPECT_EQ(f.client_id, 42u);
  EXPECT_EQ(f.gfx_ns, 1000u);
  EXPECT_EQ(f.compute_ns, 2500u);
  EXPECT_EQ(f.vram_bytes, 2048u * 1024);
  EXPECT_EQ(f.gtt_bytes, 1024u * 1024);
  EXPECT_EQ(parse_drm_fdinfo("pos:\t0\nflags:\t0\n").driver, "");  // not a DRM file
}

TEST(AmdSysfsParse, GpuMetricsV13RoundTripsThroughTheLayout) {
  namespace gm = gpu_metrics;
  gm::GpuMetricsV1_3 m;
  std::memset(&m, 0xFF, sizeof m);  // every field unset, as the firmware leaves what it lacks
  m.common_header = {static_cast<std::uint16_t>(sizeof m), 1, 3};
  m.temperature_hotspot = 88;
  m.energy_accumulator = 65536ull * 10;
  m.indep_throttle_status = std::uint64_t{1} << gm::throttler::kTempEdge;
  const auto r = decode_gpu_metrics(&m, sizeof m);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->format, 1u);
  EXPECT_EQ(r->content, 3u);
  EXPECT_EQ(r->hotspot_c, 88.0);
  EXPECT_DOUBLE_EQ(*r->energy_j, 10.0);
  EXPECT_EQ(r->indep_throttle_status, m.indep_throttle_status);
  EXPECT_EQ(r->socket_power_w, std::nullopt);  // 0xFFFF: unset, absent (never 65535 W)
  EXPECT_EQ(r->mem_c, std::nullopt);
  EXPECT_FALSE(decode_gpu_metrics(&m, 3));    // shorter than a header
  EXPECT_FALSE(decode_gpu_metrics(&m, 100));  // structure_size beyond the bytes read
  m.common_header.content_revision = 5;       // claims v1_5 with too few bytes: header only
  const auto short_table = decode_gpu_metrics(&m, sizeof m);
  ASSERT_TRUE(short_table);
  EXPECT_EQ(short_table->indep_throttle_status, std::nullopt);
}

TEST(AmdSysfsParse, ThrottlerBitsMapToNvmlReasons) {
  namespace t = gpu_metrics::throttler;
  EXPECT_EQ(clock_event_reasons_of(0), 0u);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kPpt1)), kReasonSwPowerCap);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kSpl)), kReasonSwPowerCap);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kTdcGfx)), kReasonHwSlowdown);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kTempHotspot)), kReasonSwThermal);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kTempMem)), kReasonSwThermal);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kVrHot0)), kReasonHwThermal);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kTempEdge) | t::bit(t::kPpt0)), kReasonSwThermal | kReasonSwPowerCap);
  EXPECT_EQ(clock_event_reasons_of(t::bit(t::kFit)), 0u);  // reliability limit: no NVML reason
}

}  // namespace sysfs_parse_test
}  // namespace gpuwatch::amd
