#include "attribution/job_mapping.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::attribution {
namespace {

namespace fs = std::filesystem;

TEST(JobMapping, OneJobIdPerLine) {
  EXPECT_EQ(parse_job_mapping_file("4821\n"), (std::vector<std::string>{"4821"}));
  EXPECT_EQ(parse_job_mapping_file("  12 \r\n\n13"), (std::vector<std::string>{"12", "13"}));
  EXPECT_TRUE(parse_job_mapping_file("\n \n").empty());
}

TEST(JobMapping, GpuKeys) {
  EXPECT_TRUE(is_gpu_key("0"));
  EXPECT_TRUE(is_gpu_key("7.2"));
  EXPECT_FALSE(is_gpu_key("0~"));
  EXPECT_FALSE(is_gpu_key(".0"));
  EXPECT_FALSE(is_gpu_key("gpu0"));
}

TEST(JobMapping, ReadsTheDirectoryAndSkipsOtherFiles) {
  fs::path dir = fs::temp_directory_path() / ("gpuwatch-jobmap-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "0") << "4821\n";
  std::ofstream(dir / "1") << "4821\n4822\n";
  std::ofstream(dir / "3.1") << "900\n";
  std::ofstream(dir / ".0.swp") << "junk\n";
  std::ofstream(dir / "2") << "";
  auto mapping = read_job_mapping_dir(dir.string());
  ASSERT_TRUE(mapping) << mapping.error().message;
  EXPECT_EQ(mapping->size(), 3u);
  EXPECT_EQ(mapping->at("1"), (std::vector<std::string>{"4821", "4822"}));
  EXPECT_EQ(mapping->at("3.1"), (std::vector<std::string>{"900"}));
  fs::remove_all(dir);
  auto gone = read_job_mapping_dir(dir.string());
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().message.find(dir.string()), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::attribution
