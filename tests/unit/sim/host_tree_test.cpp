// The scenario's `host:` keys and the simulated host they write (gpuwatch doctor's /proc and /dev).
#include "sim/engine/host_tree.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/stat.h>

#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace host_tree_test {

namespace fs = std::filesystem;

core::Result<Scenario> parse(const std::string& yaml) { return parse_scenario(yaml, "test.yaml", ""); }

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TempFolder {
  fs::path path;
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "host-tree-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(SimHostTree, AHealthyHostByDefault) {
  auto sc = parse("driver: {version: 550.90.07}\ngpus: [{model: H100, count: 2}]\n");
  ASSERT_TRUE(sc) << sc.error().message;
  TempFolder root;
  ASSERT_TRUE(write_host_tree(*sc, root.path));
  EXPECT_NE(slurp(root.path / "proc/driver/nvidia/version").find("Kernel Module  550.90.07"), std::string::npos);
  EXPECT_NE(slurp(root.path / "proc/modules").find("\nnvidia "), std::string::npos);
  for (const char* node : {"dev/nvidia0", "dev/nvidia1", "dev/nvidiactl", "dev/nvidia-uvm"}) {
    struct stat st {};
    ASSERT_EQ(::stat((root.path / node).c_str(), &st), 0) << node;
    EXPECT_EQ(st.st_mode & 0777, 0666u) << node;
  }
  EXPECT_FALSE(fs::exists(root.path / "dev/nvidia2"));
  EXPECT_FALSE(fs::exists(root.path / ".dockerenv"));
  EXPECT_EQ(slurp(root.path / "dev/kmsg"), "");
}

TEST(SimHostTree, EachFaultKey) {
  auto sc = parse(
      "driver: {version: 550.90.07}\n"
      "host: {module_loaded: false, device_nodes: unreadable, container: docker,\n"
      "       kernel_log: [{at: 2s, gpu: 1, xid: 79}]}\n"
      "gpus: [{model: H100, count: 2}]\n");
  ASSERT_TRUE(sc) << sc.error().message;
  TempFolder root;
  ASSERT_TRUE(write_host_tree(*sc, root.path));
  EXPECT_FALSE(fs::exists(root.path / "proc/driver/nvidia/version"));
  EXPECT_EQ(slurp(root.path / "proc/modules").find("nvidia "), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat((root.path / "dev/nvidia0").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0u);
  EXPECT_TRUE(fs::exists(root.path / ".dockerenv"));
  const std::string bus = kernel_pci_name(sc->gpus[1].values[key_index(Key::PciBusId)].text);
  EXPECT_EQ(slurp(root.path / "dev/kmsg"),
            "4,1000,2000000,-;NVRM: Xid (PCI:" + bus + "): 79, pid='<unknown>', name=<unknown>, simulated\n");

  auto missing = parse("host: {device_nodes: missing, module_version: 535.104.05}\ngpus: [{model: H100}]\n");
  ASSERT_TRUE(missing);
  TempFolder other;
  ASSERT_TRUE(write_host_tree(*missing, other.path));
  EXPECT_FALSE(fs::exists(other.path / "dev/nvidia0"));
  EXPECT_NE(slurp(other.path / "proc/driver/nvidia/version").find("535.104.05"), std::string::npos);
}

TEST(SimHostTree, KernelNamesOfPciAddresses) {
  EXPECT_EQ(kernel_pci_name("00000000:3B:00.0"), "0000:3b:00");
  EXPECT_EQ(kernel_pci_name("0000:3b:00.0"), "0000:3b:00");
}

TEST(SimHostTree, BadHostKeysNameTheKey) {
  auto bad = parse("host: {device_nodes: sometimes}\ngpus: [{model: H100}]\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("device_nodes"), std::string::npos);
  auto gpu = parse("host: {kernel_log: [{gpu: 3, xid: 79}]}\ngpus: [{model: H100}]\n");
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.error().message.find("gpu"), std::string::npos);
  auto unknown = parse("host: {kernel: x}\ngpus: [{model: H100}]\n");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown key in host"), std::string::npos);
}

}  // namespace host_tree_test
}  // namespace gpuwatch::sim
