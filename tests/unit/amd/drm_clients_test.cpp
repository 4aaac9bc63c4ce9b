#include "amd/drm_clients.hpp"

#include <gtest/gtest.h>

#include "amd/amd_backend.hpp"
#include "unit/amd/fake_amd_tree.hpp"

namespace gpuwatch::amd {
namespace drm_clients_test {

using fake_amd_tree::CountingTree;
using fake_amd_tree::FakeAmdTree;

constexpr const char* kSlot = "0000:c1:00.0";

std::unique_ptr<backend::DeviceBackend> open_over(const FakeAmdTree& tree, std::shared_ptr<CountingTree> sim) {
  backend::OpenOptions options;
  options.host_root = tree.root();
  options.simulated_tree = std::move(sim);
  auto opened = open_backend(options);
  EXPECT_TRUE(opened);
  return opened ? std::move(*opened) : nullptr;
}

const core::ProcessSample* find(const core::DeviceSnapshot& d, std::uint32_t pid) {
  for (const auto& p : d.processes)
    if (p.pid == pid) return &p;
  return nullptr;
}

TEST(AmdProcesses, FdinfoClientsBecomeProcessesOnTheirGpu) {
  FakeAmdTree tree;
  tree.add_amd_card(0, kSlot);
  tree.add_amd_card(1, "0000:c2:00.0");
  // pid 4242: client 7 open twice (a dup'd fd: counted once) and client 8; pid 5151 on the other GPU;
  // pid 6161: an Intel GPU's client and a file that is not DRM at all.
  tree.add_fdinfo(4242, 3, "amdgpu", kSlot, 7, 0, 1000, 1024);
  tree.add_fdinfo(4242, 4, "amdgpu", kSlot, 7, 0, 1000, 1024);
  tree.add_fdinfo(4242, 9, "amdgpu", kSlot, 8, 0, 500, 2048);
  tree.add_fdinfo(5151, 3, "amdgpu", "0000:c2:00.0", 1, 100, 0, 4096);
  tree.add_fdinfo(6161, 3, "i915", kSlot, 2, 100, 0, 4096);
  tree.write("proc/6161/fdinfo/0", "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t5\n");
  tree.write("proc/4242/comm", "trainer\n");
  tree.write("proc/self/fdinfo/1", "pos:\t0\n");  // not a pid: skipped
  auto backend = open_over(tree, nullptr);
  ASSERT_TRUE(backend);
  backend::DeviceHandle dev;
  ASSERT_TRUE(backend->handle_by_index(0, &dev).ok());
  core::DeviceSnapshot device;
  ASSERT_TRUE(backend->read_processes(dev, nullptr, device).ok());
  EXPECT_EQ(device.processes_status, core::FieldStatus::Ok);
  ASSERT_EQ(device.processes.size(), 1u);
  const auto& p = device.processes[0];
  EXPECT_EQ(p.pid, 4242u);
  EXPECT_EQ(p.used_memory_bytes, (1024u + 2048u) * 1024u);  // client 7 once, client 8
  EXPECT_EQ(p.type, core::ProcessType::Compute);             // compute engine only
  EXPECT_EQ(p.name, "trainer");
  EXPECT_FALSE(p.sm_ratio);  // not asked for utilization

  ASSERT_TRUE(backend->handle_by_index(1, &dev).ok());
  core::DeviceSnapshot other;
  ASSERT_TRUE(backend->read_processes(dev, nullptr, other).ok());
  ASSERT_EQ(other.processes.size(), 1u);
  EXPECT_EQ(other.processes[0].pid, 5151u);
  EXPECT_EQ(other.processes[0].type, core::ProcessType::Graphics);
}

TEST(AmdProcesses, UtilizationIsEngineTimeOverTheTimeBetweenReads) {
  FakeAmdTree tree;
  tree.add_amd_card(0, kSlot);
  tree.add_fdinfo(4242, 3, "amdgpu", kSlot, 7, 0, 1'000'000'000ull, 1024);
  tree.add_fdinfo(4242, 4, "amdgpu", kSlot, 8, 0, 0, 1024);
  auto sim = std::make_shared<CountingTree>();
  auto backend = open_over(tree, sim);
  ASSERT_TRUE(backend);
  backend::DeviceHandle dev;
  ASSERT_TRUE(backend->handle_by_index(0, &dev).ok());
  unsigned long long since_us = 0;
  ASSERT_TRUE(backend->set_sim_clock(1'700'000'000'000));
  core::DeviceSnapshot first;
  ASSERT_TRUE(backend->read_processes(dev, &since_us, first).ok());
  ASSERT_EQ(first.processes.size(), 1u);
  EXPECT_FALSE(first.processes[0].sm_ratio);  // one reading: no rate yet
  EXPECT_EQ(since_us, 1'700'000'000'000ull * 1000);
  // 2 s later: client 7 ran 0.5 s more, client 8 0.3 s: 0.8 s of 2 s.
  tree.add_fdinfo(4242, 3, "amdgpu", kSlot, 7, 0, 1'500'000'000ull, 1024);
  tree.add_fdinfo(4242, 4, "amdgpu", kSlot, 8, 0, 300'000'000ull, 1024);
  ASSERT_TRUE(backend->set_sim_clock(1'700'000'002'000));
  core::DeviceSnapshot second;
  ASSERT_TRUE(backend->read_processes(dev, &since_us, second).ok());
  ASSERT_EQ(second.processes.size(), 1u);
  ASSERT_TRUE(second.processes[0].sm_ratio);
  EXPECT_NEAR(*second.processes[0].sm_ratio, 0.4, 1e-9);
  EXPECT_FALSE(second.processes[0].encoder_ratio);  // no such counter: absent
  EXPECT_EQ(since_us, 1'700'000'002'000ull * 1000);
}

TEST(AmdProcesses, ARescanReadsOnlyTheAmdgpuFilesAgain) {
  FakeAmdTree tree;
  tree.add_amd_card(0, kSlot);
  tree.add_fdinfo(4242, 3, "amdgpu", kSlot, 7, 0, 10, 1024);
  tree.add_fdinfo(6161, 3, "i915", kSlot, 2, 100, 0, 4096);
  tree.write("proc/6161/fdinfo/0", "pos:\t0\n");
  DrmClientScanner scanner(tree.root());
  auto first = scanner.scan(1);
  EXPECT_EQ(first->clients.size(), 1u);
  EXPECT_EQ(scanner.files_read(), 3u);
  EXPECT_EQ(scanner.scan(1).get(), first.get());  // the same moment: the same scan
  auto second = scanner.scan(2);                  // the clock moved: a new scan...
  EXPECT_EQ(second->clients.size(), 1u);
  EXPECT_EQ(scanner.files_read(), 4u);  // ...that reads only the amdgpu file again
  tree.remove("proc/4242");
  EXPECT_TRUE(scanner.scan(3)->clients.empty());  // the process exited
}

TEST(AmdProcesses, AnUnreadableProcFailsTheProcessList) {
  FakeAmdTree tree;
  tree.add_amd_card(0, kSlot);
  DrmClientScanner scanner(tree.root());  // no proc folder at all
  const auto scan = scanner.scan(0);
  EXPECT_EQ(scan->error.reason, core::ErrorReason::NotSupported);
  AmdCard card;
  card.slot = kSlot;
  CardProcessReader reader;
  core::DeviceSnapshot device;
  reader.read(card, *scan, nullptr, tree.root(), device);
  EXPECT_NE(device.processes_status, core::FieldStatus::Ok);
  EXPECT_TRUE(device.processes.empty());
}

}  // namespace drm_clients_test
}  // namespace gpuwatch::amd
