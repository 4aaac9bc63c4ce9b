#include "doctor/system_view.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuwatch::doctor {
namespace system_view_test {

namespace fs = std::filesystem;

struct TempRoot {
  fs::path path;
  TempRoot() {
    std::string pattern = (fs::temp_directory_path() / "doctor-view-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempRoot() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((path / relative).parent_path());
    std::ofstream(path / relative) << text;
  }
};

TEST(DoctorSystemView, ReadsUnderItsRoot) {
  TempRoot root;
  root.write("proc/modules", "nvidia 1 0 - Live 0x0\n");
  RootedSystemView view(root.path.string());
  EXPECT_EQ(view.read_file("/proc/modules", 1 << 20), "nvidia 1 0 - Live 0x0\n");
  EXPECT_EQ(view.read_file("/proc/modules", 6), "nvidia");
  EXPECT_EQ(view.read_file("/proc/absent", 100), std::nullopt);
  EXPECT_TRUE(view.exists("/proc/modules"));
  EXPECT_FALSE(view.exists("/.dockerenv"));
  auto names = view.list("/proc");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, std::vector<std::string>{"modules"});
  EXPECT_EQ(view.kernel_journal(), std::nullopt);  // never the real journal for a simulated host
}

TEST(DoctorSystemView, AccessComesFromTheModeBitsEvenForRoot) {
  TempRoot root;
  root.write("dev/nvidia0", "");
  root.write("dev/nvidia1", "");
  ::chmod((root.path / "dev/nvidia0").c_str(), 0666);
  ::chmod((root.path / "dev/nvidia1").c_str(), 0000);
  RootedSystemView view(root.path.string());
  EXPECT_EQ(view.read_writable("/dev/nvidia0"), true);
  EXPECT_EQ(view.read_writable("/dev/nvidia1"), false);
  EXPECT_EQ(view.read_writable("/dev/nvidia2"), std::nullopt);
}

TEST(DoctorSystemView, AFifoDoesNotBlockTheRead) {
  TempRoot root;
  fs::create_directories(root.path / "dev");
  ASSERT_EQ(::mkfifo((root.path / "dev/kmsg").c_str(), 0600), 0);
  RootedSystemView view(root.path.string());
  auto text = view.read_file("/dev/kmsg", 100);  // returns at once: empty or nothing
  EXPECT_TRUE(!text || text->empty());
}

}  // namespace system_view_test
}  // namespace gpuwatch::doctor
