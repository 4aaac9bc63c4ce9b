#include "doctor/host_facts.hpp"

#include <algorithm>
#include <gtest/gtest.h>

#include "unit/doctor/fake_system_view.hpp"

namespace gpuwatch::doctor {
namespace host_facts_test {

using testing::FakeSystemView;

// A literal with its NULs, as /proc/PID/cmdline holds it.
template <std::size_t N>
std::string nul_separated(const char (&text)[N]) {
  return std::string(text, N - 1);
}

TEST(DoctorHostFacts, ParsesTheModuleVersionOfBothDriverFlavours) {
  EXPECT_EQ(parse_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n"
                                 "GCC version:  gcc version 12.2.0\n"),
            "550.90.07");
  EXPECT_EQ(parse_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build\n"),
            "535.104.05");
  EXPECT_EQ(parse_module_version("garbage\n"), std::nullopt);
}

TEST(DoctorHostFacts, FindsTheNvidiaModuleButNotItsHelpersAlone) {
  EXPECT_TRUE(modules_list_nvidia("ext4 1 1 - Live 0x0\nnvidia 60362752 2 nvidia_uvm, Live 0x0 (POE)\n"));
  EXPECT_FALSE(modules_list_nvidia("nvidia_uvm 1798144 0 - Live 0x0\nnouveau 1 0 - Live 0x0\n"));
}

TEST(DoctorHostFacts, ParsesXidLinesFromKmsgAndJournal) {
  auto xids = parse_kernel_xids(
      "4,1000,95000000,-;NVRM: Xid (PCI:0000:3B:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
      "6,1001,96000000,-;usb 1-1: new device\n"
      "NVRM: Xid (PCI:0000:18:00): 31, pid=1234, name=python, Ch 00000010\n"
      "NVRM: Xid (PCI:0000:18:00): notanumber\n");
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_EQ(xids[0].pci, "0000:3b:00");
  EXPECT_EQ(xids[0].xid, 79u);
  EXPECT_EQ(xids[0].line.rfind("NVRM: Xid", 0), 0u);  // the kmsg record's header is dropped
  EXPECT_EQ(xids[1].xid, 31u);
}

TEST(DoctorHostFacts, TellsContainersApart) {
  EXPECT_EQ(container_kind(true, false, "0::/"), "docker");
  EXPECT_EQ(container_kind(false, true, "0::/"), "podman");
  EXPECT_EQ(container_kind(false, false, "0::/kubepods/besteffort/pod1/abc"), "kubernetes");
  EXPECT_EQ(container_kind(false, false, "0::/system.slice/containerd.service/x"), "container");
  EXPECT_EQ(container_kind(false, false, "0::/init.scope\n"), "");
}

TEST(DoctorHostFacts, GathersThroughTheView) {
  FakeSystemView view;
  view.files["/proc/driver/nvidia/version"] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  x\n";
  view.files["/proc/modules"] = "nvidia 1 0 - Live 0x0\n";
  view.files["/proc/1/cgroup"] = "0::/init.scope\n";
  view.files["/dev/kmsg"] = "4,1,2,-;NVRM: Xid (PCI:0000:3b:00): 48, pid=1, DBE\n";
  view.nodes["/dev/nvidia0"] = true;
  view.nodes["/dev/nvidiactl"] = false;
  view.nodes["/dev/null"] = true;
  view.variables["CUDA_VISIBLE_DEVICES"] = "0";
  HostFacts facts = gather_host_facts(view);
  EXPECT_EQ(facts.module_version, "550.90.07");
  EXPECT_EQ(facts.module_listed, true);
  ASSERT_EQ(facts.device_nodes.size(), 2u);  // /dev/null is not ours
  EXPECT_EQ(facts.device_nodes[0].name, "nvidia0");
  EXPECT_TRUE(facts.device_nodes[0].accessible);
  EXPECT_FALSE(facts.device_nodes[1].accessible);
  EXPECT_EQ(facts.container, "");
  EXPECT_EQ(facts.cuda_visible_devices, "0");
  EXPECT_EQ(facts.nvidia_visible_devices, std::nullopt);
  EXPECT_TRUE(facts.kernel_log_readable);
  ASSERT_EQ(facts.xids.size(), 1u);
  EXPECT_EQ(facts.xids[0].xid, 48u);
}

TEST(DoctorHostFacts, FallsBackToTheJournalAndOtherwiseSaysTheLogIsUnreadable) {
  FakeSystemView view;
  EXPECT_FALSE(gather_host_facts(view).kernel_log_readable);
  EXPECT_FALSE(gather_host_facts(view).module_listed.has_value());  // unreadable, not "no"
  view.journal = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n";
  HostFacts facts = gather_host_facts(view);
  EXPECT_TRUE(facts.kernel_log_readable);
  EXPECT_EQ(facts.kernel_log_source, "journalctl -k");
  EXPECT_EQ(facts.xids.size(), 1u);
}

TEST(DoctorHostFacts, FindsServeAndRecordByTheirCommandLine) {
  FakeSystemView view;
  view.files["/proc/10/cmdline"] = nul_separated("/usr/bin/gpuwatch\0serve\0--listen\0:9835\0");
  view.files["/proc/11/cmdline"] = nul_separated("gpuwatch\0status\0");
  view.files["/proc/12/cmdline"] = nul_separated("python\0record\0");
  view.files["/proc/self/cmdline"] = nul_separated("gpuwatch\0record\0");
  auto found = find_monitors(view);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "serve (pid 10)");
}

}  // namespace host_facts_test
}  // namespace gpuwatch::doctor
