#include "recorder/paths.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace gpuwatch::recorder {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuwatch-record-XXXXXX").string();
    path = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string path;
};

TEST(RecordPaths, DefaultFollowsXdgStateHome) {
  EXPECT_EQ(default_database_path("/var/state", "/home/a"), "/var/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(nullptr, "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("relative/dir", "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("", "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(nullptr, nullptr), "");
}

TEST(RecordPaths, SystemdStateDirectoryComesFirst) {
  // StateDirectory=gpuwatch in the unit: STATE_DIRECTORY=/var/lib/gpuwatch.
  EXPECT_EQ(default_database_path("/var/lib/gpuwatch", "/var/state", "/home/a"), "/var/lib/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("/var/lib/gpuwatch/", nullptr, nullptr), "/var/lib/gpuwatch/history.db");
  // Several StateDirectory= entries: colon-separated, the first is ours.
  EXPECT_EQ(default_database_path("/var/lib/gpuwatch:/var/lib/other", nullptr, "/home/a"),
            "/var/lib/gpuwatch/history.db");
}

TEST(RecordPaths, InvalidStateDirectoryFallsBackToXdgThenHome) {
  EXPECT_EQ(default_database_path("relative/state", "/var/state", "/home/a"), "/var/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("", "/var/state", "/home/a"), "/var/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(":/var/lib/gpuwatch", nullptr, "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("/", nullptr, "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(nullptr, "relative", "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("rel", "rel", nullptr), "");
}

TEST(RecordPaths, EnvironmentDefaultReadsStateDirectory) {
  const char* saved = std::getenv("STATE_DIRECTORY");
  const std::string saved_value = saved ? saved : "";
  ::setenv("STATE_DIRECTORY", "/var/lib/gpuwatch", 1);
  EXPECT_EQ(default_database_path(), "/var/lib/gpuwatch/history.db");
  ::setenv("STATE_DIRECTORY", "not/absolute", 1);
  EXPECT_NE(default_database_path(), "not/absolute/history.db");
  if (saved) ::setenv("STATE_DIRECTORY", saved_value.c_str(), 1);
  else ::unsetenv("STATE_DIRECTORY");
  EXPECT_NE(no_default_database_message().find("STATE_DIRECTORY"), std::string::npos);
}

TEST(RecordPaths, CreatesMissingFolders) {
  TempDir dir;
  std::string db = dir.path + "/state/gpuwatch/history.db";
  ASSERT_TRUE(prepare_database_directory(db));
  EXPECT_TRUE(fs::is_directory(dir.path + "/state/gpuwatch"));
  EXPECT_TRUE(prepare_database_directory(db));  // again: nothing to do
}

TEST(RecordPaths, AFileInTheWayIsAClearError) {
  TempDir dir;
  std::ofstream(dir.path + "/blocker") << "x";
  auto result = prepare_database_directory(dir.path + "/blocker/history.db");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("blocker"), std::string::npos) << result.error().message;
  auto deeper = prepare_database_directory(dir.path + "/blocker/sub/history.db");
  ASSERT_FALSE(deeper);
  EXPECT_NE(deeper.error().message.find("cannot create the folder"), std::string::npos) << deeper.error().message;
}

TEST(RecordPaths, ReadOnlyFolderIsRefused) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  TempDir dir;
  fs::create_directory(dir.path + "/ro");
  fs::permissions(dir.path + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
  auto result = prepare_database_directory(dir.path + "/ro/history.db");
  fs::permissions(dir.path + "/ro", fs::perms::owner_all);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("cannot write"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::recorder
