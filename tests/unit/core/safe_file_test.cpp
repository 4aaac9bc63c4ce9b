// issue 16: whole-file writes never follow a planted link and never leave half a file.
#include "core/safe_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuwatch::core {
namespace safe_file_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/gw_safe_file_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(SafeFile, ASymlinkAtTheOldTemporaryNameIsNotFollowed) {
  TempDir dir;
  const fs::path victim = dir.path / "victim.txt";
  std::ofstream(victim) << "precious";
  const fs::path target = dir.path / "report.html";
  fs::create_symlink(victim, target.string() + ".tmp");  // the name report -o used to write to
  ASSERT_TRUE(write_file_atomically(target.string(), "<html>report</html>"));
  EXPECT_EQ(read(victim), "precious");
  EXPECT_EQ(read(target), "<html>report</html>");
  EXPECT_TRUE(fs::is_symlink(target.string() + ".tmp"));  // left alone, not replaced either
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 3u);  // victim, the link, the report: no temporary file left
}

TEST(SafeFile, ReplacesAFileAndKeepsItsPermissions) {
  TempDir dir;
  const fs::path target = dir.path / "top.conf";
  std::ofstream(target) << "old";
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomically(target.string(), "new"));
  EXPECT_EQ(read(target), "new");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(SafeFile, ADirectoryOrAMissingFolderIsAClearError) {
  TempDir dir;
  auto on_dir = write_file_atomically(dir.path.string(), "x");
  ASSERT_FALSE(on_dir);
  EXPECT_NE(on_dir.error().message.find("is a directory"), std::string::npos) << on_dir.error().message;
  auto missing = write_file_atomically((dir.path / "no" / "such" / "f").string(), "x");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cannot write"), std::string::npos);
}

TEST(SafeFile, AppendRefusesASymlink) {
  TempDir dir;
  const fs::path victim = dir.path / "victim.txt";
  std::ofstream(victim) << "precious";
  const fs::path log = dir.path / "gpu.csv";
  fs::create_symlink(victim, log);
  auto fd = open_for_append(log.string());
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().message.find("symbolic link"), std::string::npos);
  EXPECT_EQ(read(victim), "precious");
}

}  // namespace safe_file_test
}  // namespace gpuwatch::core
