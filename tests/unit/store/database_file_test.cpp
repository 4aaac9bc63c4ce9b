// issue 16: what a history database path must be before SQLite touches it.
#include "store/database_file.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/history_database.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void make_foreign_database(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(db);
}

TEST(DatabaseFile, ADirectoryIsNamedNotADiskIoError) {
  TempDir dir;
  auto opened = HistoryDatabase::open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("is a directory, not a history database"), std::string::npos)
      << opened.error().message;
  auto read = HistoryDatabase::open(dir.path(), OpenOptions{.read_only = true});
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("is a directory"), std::string::npos);
}

TEST(DatabaseFile, DevNullIsRefusedAndNoJournalIsCreated) {
  auto opened = HistoryDatabase::open("/dev/null");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, "/dev/null is a device, not a history database: give the path of a regular file");
  EXPECT_FALSE(fs::exists("/dev/null-journal"));
  EXPECT_FALSE(fs::exists("/dev/null-wal"));
}

TEST(DatabaseFile, AnotherProgramsDatabaseIsRefusedAndLeftAsItWas) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  make_foreign_database(path);
  const std::string before = bytes_of(path);
  auto opened = HistoryDatabase::open(path);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("another program's SQLite database"), std::string::npos)
      << opened.error().message;
  EXPECT_EQ(bytes_of(path), before);  // no tables added, not switched to WAL
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
  EXPECT_FALSE(fs::exists(path + "-journal"));
}

TEST(DatabaseFile, AFileThatIsNotSqliteIsRefused) {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  std::ofstream(path) << "just some text that is long enough to have a header\n";
  auto opened = HistoryDatabase::open(path);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("is not a SQLite database"), std::string::npos);
  EXPECT_EQ(bytes_of(path), "just some text that is long enough to have a header\n");
}

TEST(DatabaseFile, OwnDatabaseStillOpensForWritingAndReading) {
  TempDir dir;
  const std::string path = dir.file("h.db");
  ASSERT_TRUE(HistoryDatabase::open(path));
  ASSERT_TRUE(HistoryDatabase::open(path));  // reopened: it is gpuwatch's
  EXPECT_TRUE(HistoryDatabase::open(path, OpenOptions{.read_only = true}));
}

TEST(DatabaseFile, ReadOnlyMediaIsOpenedImmutable) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere: read-only media cannot be emulated with modes";
  TempDir dir;
  const std::string folder = dir.file("ro");
  fs::create_directory(folder);
  const std::string path = folder + "/h.db";
  { ASSERT_TRUE(HistoryDatabase::open(path)); }
  for (const char* side : {"-wal", "-shm"}) fs::remove(path + side);
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
  EXPECT_TRUE(on_read_only_media(path));
  auto opened = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  EXPECT_TRUE(opened) << opened.error().message;
  ::chmod(folder.c_str(), 0755);
}

TEST(DatabaseFile, ImmutableUriEscapesWhatAUriReserves) {
  EXPECT_EQ(immutable_uri("/mnt/backup/h.db"), "file:/mnt/backup/h.db?immutable=1");
  EXPECT_EQ(immutable_uri("/a?b#c%d"), "file:/a%3Fb%23c%25d?immutable=1");
}

}  // namespace
}  // namespace gpuwatch::store
