// Issue 28: `top --connect` keeps each remote GPU's vendor from the node's JSON ("vendor"); a node
// of an older gpuwatch (no key) has NVIDIA GPUs.
#include <gtest/gtest.h>

#include "remote/remote_node.hpp"

namespace gpuwatch::remote {
namespace remote_vendor_test {  // this test file's helpers (unity builds: no clash with another file's)

TEST(RemoteVendor, ParsedFromTheSnapshotJson) {
  auto parsed = parse_snapshot_json(
      R"({"gpus":[{"index":0,"vendor":"intel","up":true,"name":"Intel Arc A770"},{"index":1,"up":true}]})");
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->snapshot.devices.size(), 2u);
  EXPECT_EQ(parsed->snapshot.devices[0].vendor, core::Vendor::Intel);
  EXPECT_EQ(parsed->snapshot.devices[1].vendor, core::Vendor::Nvidia);
}

}  // namespace remote_vendor_test
}  // namespace gpuwatch::remote
