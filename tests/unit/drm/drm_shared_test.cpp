#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "drm/fdinfo.hpp"
#include "drm/small_file.hpp"

namespace drm_shared_test {
using namespace gpuwatch;

TEST(DrmFdinfoKeys, IdentityKeysAndOthersInFileOrder) {
  const std::string text =
      "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c1:00.0\ndrm-client-id:\t42\n"
      "drm-engine-gfx:\t1500 ns\ndrm-memory-vram:\t2048 KiB\nnot-drm:\t7\ndrm-nocolon\n";
  std::vector<std::pair<std::string, std::string>> others;
  const auto id = drm::parse_fdinfo_keys(text, [&](std::string_view k, std::string_view v) {
    others.emplace_back(std::string(k), std::string(v));
  });
  EXPECT_EQ(id.driver, "amdgpu");
  EXPECT_EQ(id.pdev, "0000:c1:00.0");
  ASSERT_TRUE(id.client_id);
  EXPECT_EQ(*id.client_id, 42u);
  const std::vector<std::pair<std::string, std::string>> want{{"drm-engine-gfx", "1500 ns"},
                                                              {"drm-memory-vram", "2048 KiB"}};
  EXPECT_EQ(others, want);
}

TEST(DrmFdinfoKeys, NoClientIdIsAbsentNotZero) {
  const auto id = drm::parse_fdinfo_keys("drm-driver: xe\ndrm-client-id: none\n", [](auto, auto) {});
  EXPECT_EQ(id.driver, "xe");
  EXPECT_FALSE(id.client_id);
}

TEST(DrmFdinfoNumbers, UnitsAndLeadingNumbers) {
  EXPECT_EQ(drm::fdinfo_number("123"), 123u);
  EXPECT_EQ(drm::fdinfo_number("123 ns"), 123u);
  EXPECT_EQ(drm::fdinfo_number("4 KiB"), 4096u);
  EXPECT_EQ(drm::fdinfo_number("3 MiB"), 3u << 20);
  EXPECT_EQ(drm::fdinfo_number("2 GiB"), std::uint64_t{2} << 30);
  EXPECT_FALSE(drm::fdinfo_number("KiB"));
  EXPECT_FALSE(drm::fdinfo_number(""));
  EXPECT_EQ(drm::fdinfo_leading_number(" 5 KiB"), 5u);
  EXPECT_EQ(drm::numeric_name("1234"), 1234u);
  EXPECT_FALSE(drm::numeric_name("self"));
  EXPECT_FALSE(drm::numeric_name(""));
  EXPECT_FALSE(drm::numeric_name("12a"));
}

TEST(DrmSmallFile, ReadsTrimsAndReportsErrno) {
  const std::string path = ::testing::TempDir() + "drm_shared_test_file";
  { std::ofstream(path) << "  DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0 \n"; }
  drm::FileBuffer<16> small;
  drm::read_file(path, small);
  EXPECT_TRUE(small.ok());
  EXPECT_EQ(small.size, 16u);  // capped at the buffer's capacity
  const auto text = drm::read_text_file(path);
  ASSERT_TRUE(text);
  EXPECT_EQ(drm::uevent_value(*text, "PCI_SLOT_NAME"), "0000:c1:00.0");
  EXPECT_FALSE(drm::uevent_value(*text, "PCI"));
  EXPECT_EQ(drm::trimmed(" \t42\n\0"), "42");
  EXPECT_TRUE(drm::path_exists(path));

  int error = 0;
  EXPECT_FALSE(drm::read_text_file(path + ".absent", &error));
  EXPECT_EQ(error, ENOENT);
  drm::FileBuffer<16> none;
  drm::read_file("", none);
  EXPECT_EQ(none.error, ENOENT);
  EXPECT_FALSE(drm::path_exists(path + ".absent"));
}

std::vector<std::string> observed_paths;
void observe_path(const char* path) { observed_paths.emplace_back(path); }

TEST(DrmSmallFile, BenchObserverSeesEveryOpenedPathOnlyWhileSet) {
  const std::string path = ::testing::TempDir() + "drm_shared_test_observed";
  { std::ofstream(path) << "1\n"; }
  observed_paths.clear();
  drm::set_read_observer(&observe_path);
  drm::FileBuffer<8> buf;
  drm::read_file(path, buf);
  drm::set_read_observer(nullptr);
  drm::read_file(path, buf);
  EXPECT_EQ(observed_paths, std::vector<std::string>{path});
}

}  // namespace drm_shared_test
