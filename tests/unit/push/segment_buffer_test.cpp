#include "push/segment_buffer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace segment_buffer_test {

namespace fs = std::filesystem;
using gpuwatch::push::BufferLimits;
using gpuwatch::push::SegmentBuffer;

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("gpuwatch-push-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(PushSegmentBuffer, OldestFirstAndSurvivesReopen) {
  const auto dir = fresh_dir("order");
  {
    auto buffer = SegmentBuffer::open(dir, {});
    ASSERT_TRUE(buffer) << buffer.error().message;
    for (int i = 0; i < 12; ++i) ASSERT_TRUE(buffer->append("body" + std::to_string(i), 1000 + i, 10));
    EXPECT_EQ(buffer->pending_samples(), 120u);
    buffer->remove_oldest();  // the first was sent
  }
  auto reopened = SegmentBuffer::open(dir, {});
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->pending_samples(), 110u);
  // Resent in order: 1..11 (numeric, not string, order of sequence numbers), then new appends after them.
  ASSERT_TRUE(reopened->append("body12", 1012, 10));
  for (int i = 1; i <= 12; ++i) {
    ASSERT_NE(reopened->oldest(), nullptr);
    EXPECT_EQ(reopened->oldest()->timestamp_ms, 1000 + i);
    EXPECT_EQ(*reopened->read(*reopened->oldest()), "body" + std::to_string(i));
    reopened->remove_oldest();
  }
  EXPECT_EQ(reopened->oldest(), nullptr);
  EXPECT_EQ(reopened->pending_samples(), 0u);
  fs::remove_all(dir);
}

TEST(PushSegmentBuffer, TheNewestIsSentFromMemoryWhileItsFileStaysUntilAccepted) {
  const auto dir = fresh_dir("newest");
  auto buffer = SegmentBuffer::open(dir, {});
  ASSERT_TRUE(buffer) << buffer.error().message;
  ASSERT_TRUE(buffer->append("first", 1000, 1));
  ASSERT_TRUE(buffer->append("second", 1001, 1));
  const auto files = [&] { return std::distance(fs::directory_iterator(dir), fs::directory_iterator()); };
  EXPECT_EQ(files(), 2);
  // The newest is not read back from its file: prove it by emptying the file under it.
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("0000000000000002-", 0) == 0) std::ofstream(entry.path(), std::ios::trunc);
  }
  EXPECT_EQ(*buffer->read(*buffer->oldest()), "first");  // older ones come from their files
  buffer->remove_oldest();
  EXPECT_EQ(*buffer->read(*buffer->oldest()), "second");
  EXPECT_EQ(files(), 1);  // its file stays until the receiver accepted it (a crash resends it)
  buffer->remove_oldest();
  EXPECT_EQ(files(), 0);
  fs::remove_all(dir);
}

TEST(PushSegmentBuffer, SizeBoundDropsTheOldest) {
  const auto dir = fresh_dir("size");
  auto buffer = SegmentBuffer::open(dir, BufferLimits{250, std::chrono::hours(1)});
  ASSERT_TRUE(buffer);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(buffer->append(std::string(100, 'x'), 1000 + i, 7));
  EXPECT_EQ(buffer->enforce_limits(1005), 21u);  // 500 bytes -> 200: three segments of 7 samples dropped
  EXPECT_LE(buffer->bytes(), 250u);
  EXPECT_EQ(buffer->oldest()->timestamp_ms, 1003);
  EXPECT_EQ(buffer->segment_count(), 2u);
  fs::remove_all(dir);
}

TEST(PushSegmentBuffer, RoomIsMadeBeforeAnAppendSoTheBoundIsNeverPassed) {
  const auto dir = fresh_dir("room");
  auto buffer = SegmentBuffer::open(dir, BufferLimits{250, std::chrono::hours(1)});
  ASSERT_TRUE(buffer);
  ASSERT_TRUE(buffer->append(std::string(100, 'x'), 1000, 7));
  ASSERT_TRUE(buffer->append(std::string(100, 'x'), 1001, 7));
  EXPECT_EQ(buffer->enforce_limits(1002), 0u);       // 200 of 250 bytes
  EXPECT_EQ(buffer->enforce_limits(1002, 100), 7u);  // 300 with the next: the oldest goes first
  ASSERT_TRUE(buffer->append(std::string(100, 'x'), 1002, 7));
  EXPECT_EQ(buffer->bytes(), 200u);
  EXPECT_EQ(buffer->oldest()->timestamp_ms, 1001);
  fs::remove_all(dir);
}

TEST(PushSegmentBuffer, AgeBoundDropsOldSegmentsOnly) {
  const auto dir = fresh_dir("age");
  auto buffer = SegmentBuffer::open(dir, BufferLimits{1 << 20, std::chrono::seconds(60)});
  ASSERT_TRUE(buffer);
  ASSERT_TRUE(buffer->append("a", 0, 3));
  ASSERT_TRUE(buffer->append("b", 30'000, 4));
  ASSERT_TRUE(buffer->append("c", 90'000, 5));
  EXPECT_EQ(buffer->enforce_limits(60'000), 0u);
  EXPECT_EQ(buffer->enforce_limits(100'000), 7u);  // 0 and 30 s are older than 60 s at 100 s
  EXPECT_EQ(buffer->pending_samples(), 5u);
  fs::remove_all(dir);
}

TEST(PushSegmentBuffer, LeftoverTemporaryFilesAreRemoved) {
  const auto dir = fresh_dir("tmp");
  fs::create_directories(dir);
  { std::ofstream(dir / ".tmp-0000000000000001-5-5.wr") << "half"; }
  auto buffer = SegmentBuffer::open(dir, {});
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer->segment_count(), 0u);
  EXPECT_FALSE(fs::exists(dir / ".tmp-0000000000000001-5-5.wr"));
  fs::remove_all(dir);
}

}  // namespace segment_buffer_test
