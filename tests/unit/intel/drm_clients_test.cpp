// DRM fdinfo of i915 and xe clients (drm-usage-stats.rst): what a file says, and one client per
// (pid, client id) however many descriptors share it.
#include "intel/drm_clients.hpp"

#include <gtest/gtest.h>

#include "intel_fake_tree.hpp"

namespace drm_clients_test {

using namespace gpuwatch::intel;
using intel_fake_tree::FakeRoot;

TEST(IntelDrmClientsTest, ParsesAnI915Client) {
  auto c = parse_fdinfo(intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 1500, 2500, 1024), 42);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->driver, KernelDriver::I915);
  EXPECT_EQ(c->pid, 42u);
  EXPECT_EQ(c->client_id, 7u);
  EXPECT_EQ(c->pdev, "0000:03:00.0");
  EXPECT_EQ(c->engine(EngineClass::Render).busy, 1500u);
  EXPECT_EQ(c->engine(EngineClass::Compute).busy, 2500u);
  EXPECT_EQ(c->engine(EngineClass::Compute).total, 0u);
  EXPECT_EQ(c->memory_bytes, 1024u * 1024u);  // KiB
}

TEST(IntelDrmClientsTest, ParsesAnXeClientsCyclesAndVram) {
  auto c = parse_fdinfo(intel_fake_tree::xe_fdinfo("0000:3a:00.0", 9, 300, 5000, 2048), 43);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->driver, KernelDriver::Xe);
  EXPECT_EQ(c->engine(EngineClass::Compute).busy, 300u);
  EXPECT_EQ(c->engine(EngineClass::Compute).total, 5000u);
  EXPECT_TRUE(c->engine(EngineClass::Render).present);
  EXPECT_FALSE(c->engine(EngineClass::Copy).present);
  EXPECT_EQ(c->memory_bytes, 2048u * 1024u);
}

TEST(IntelDrmClientsTest, OtherDriversAndFilesWithoutAClientIdAreNotClients) {
  EXPECT_FALSE(parse_fdinfo("drm-driver:\tamdgpu\ndrm-pdev:\t0000:c1:00.0\ndrm-client-id:\t3\n", 1));
  EXPECT_FALSE(parse_fdinfo("pos:\t0\nflags:\t02\n", 1));
  EXPECT_FALSE(parse_fdinfo("drm-driver:\ti915\ndrm-pdev:\t0000:03:00.0\n", 1));
}

TEST(IntelDrmClientsTest, ScanKeepsOneClientPerPidAndClientId) {
  FakeRoot root;
  const auto text = intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 10, 20, 64);
  root.fdinfo(100, 5, text);
  root.fdinfo(100, 6, text);  // a dup of the same client
  root.fdinfo(100, 7, intel_fake_tree::i915_fdinfo("0000:03:00.0", 8, 0, 0, 32));
  root.fdinfo(200, 3, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 0, 0, 16));  // same id, other pid
  root.fdinfo(300, 1, "drm-driver:\tamdgpu\ndrm-client-id:\t1\n");
  root.write("proc/self/fdinfo/0", text);  // not a pid
  auto scan = scan_drm_clients(root.path() + "/proc");
  EXPECT_TRUE(scan.complete);
  ASSERT_EQ(scan.clients.size(), 3u);
}

TEST(IntelDrmClientsTest, NoProcFolderIsAnIncompleteScan) {
  auto scan = scan_drm_clients("/nonexistent-gpuwatch-proc");
  EXPECT_FALSE(scan.complete);
  EXPECT_TRUE(scan.clients.empty());
}

}  // namespace drm_clients_test
