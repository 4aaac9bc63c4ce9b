// Xids in the kernel log, temperatures by slot, the monitoring; and the variables that hide GPUs.
#include <gtest/gtest.h>

#include "doctor/checks.hpp"
#include "unit/doctor/doctor_facts.hpp"

namespace gpuwatch::doctor {
namespace node_checks_test {

using testing::healthy_host;
using testing::healthy_nvml;

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DoctorNodeChecks, XidsAreMappedToGpusWithTheirMeaning) {
  auto host = healthy_host();
  const auto nvml = healthy_nvml(2);  // GPU 1 is 00000000:28:00.0
  host.xids = {{"0000:28:00", 79, "NVRM: Xid (PCI:0000:28:00): 79"}, {"0000:28:00", 79, "again"},
               {"0000:18:00", 31, "NVRM: Xid (PCI:0000:18:00): 31"}};
  auto c = check_kernel_xids(host, nvml);
  EXPECT_EQ(c.verdict, Verdict::Problem);  // 79: critical in the diagnosis' Xid table
  EXPECT_EQ(c.gpus, (std::vector<unsigned>{0, 1}));
  EXPECT_TRUE(mentions(c.evidence, "GPU 1 (0000:28:00): Xid 79 x2")) << c.evidence;
  EXPECT_TRUE(mentions(c.fix, "Xid 79")) << c.fix;
  EXPECT_FALSE(mentions(c.fix, "Xid 31")) << c.fix;  // the application's own fault: nothing to do

  host.xids = {{"0000:18:00", 31, "x"}};
  EXPECT_EQ(check_kernel_xids(host, nvml).verdict, Verdict::Ok);
  host.kernel_log_readable = false;
  EXPECT_EQ(check_kernel_xids(host, nvml).verdict, Verdict::Skipped);
}

TEST(DoctorNodeChecks, MiddleHotUnderTheSameLoadIsACoolingHint) {
  auto nvml = healthy_nvml(8);
  const double temps[] = {62, 66, 76, 80, 81, 77, 65, 61};
  for (unsigned i = 0; i < 8; ++i) nvml.gpus[i].temperature_c = temps[i];
  auto c = check_slot_temperatures(nvml);
  EXPECT_EQ(c.verdict, Verdict::Warning);
  EXPECT_EQ(c.gpus, (std::vector<unsigned>{2, 3, 4, 5}));
  EXPECT_TRUE(mentions(c.fix, "airflow"));
  // Different loads: nothing to compare.
  nvml.gpus[0].utilization_ratio = 0.1;
  EXPECT_EQ(check_slot_temperatures(nvml).verdict, Verdict::Ok);
  // Even temperatures: fine.
  auto even = healthy_nvml(8);
  EXPECT_EQ(check_slot_temperatures(even).verdict, Verdict::Ok);
  EXPECT_EQ(check_slot_temperatures(healthy_nvml(3)).verdict, Verdict::Skipped);
}

TEST(DoctorNodeChecks, MonitoringWarnsOnlyOnALowDisk) {
  MonitoringFacts m;
  m.running = {"serve (pid 10)"};
  m.database = "/var/lib/gpuwatch/history.db";
  m.database_bytes = 3u << 20;
  m.free_bytes = 50ull << 30;
  m.total_bytes = 100ull << 30;
  auto ok = check_monitoring(m);
  EXPECT_EQ(ok.verdict, Verdict::Ok);
  EXPECT_TRUE(mentions(ok.evidence, "serve (pid 10)"));
  EXPECT_TRUE(mentions(ok.evidence, "3.0 MiB"));
  m.free_bytes = 500ull << 20;
  EXPECT_EQ(check_monitoring(m).verdict, Verdict::Warning);
}

TEST(DoctorNodeChecks, VisibleDevicesHidingOrMisnamingGpus) {
  auto host = healthy_host();
  const auto nvml = healthy_nvml(2);
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Ok);
  host.cuda_visible_devices = "1";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Ok);
  host.cuda_visible_devices = "GPU-00000001";  // a UUID prefix, as CUDA accepts
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Ok);
  host.cuda_visible_devices = "0,2";
  auto misnamed = check_visible_devices(host, nvml);
  EXPECT_EQ(misnamed.verdict, Verdict::Problem);
  EXPECT_TRUE(mentions(misnamed.evidence, "'2'")) << misnamed.evidence;
  host.cuda_visible_devices = "GPU-ffff";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Problem);
  host.cuda_visible_devices = "";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Warning);
  host.cuda_visible_devices = "-1";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Warning);
  host.cuda_visible_devices.reset();
  host.container = "docker";
  host.nvidia_visible_devices = "void";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Warning);
}

TEST(DoctorNodeChecks, CgroupDeviceRulesThatLeaveTheGpusOut) {
  auto host = healthy_host();
  const auto nvml = healthy_nvml(2);
  host.cgroup_devices = "a *:* rwm\n";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Ok);
  host.cgroup_devices = "c 1:3 rwm\nc 195:* rwm\n";
  EXPECT_EQ(check_visible_devices(host, nvml).verdict, Verdict::Ok);
  host.cgroup_devices = "c 1:3 rwm\nc 195:* m\n";
  auto denied = check_visible_devices(host, nvml);
  EXPECT_EQ(denied.verdict, Verdict::Warning);
  EXPECT_TRUE(mentions(denied.evidence, "major 195")) << denied.evidence;
  EXPECT_TRUE(mentions(denied.fix, "c 195:* rwm")) << denied.fix;
}

}  // namespace node_checks_test
}  // namespace gpuwatch::doctor
