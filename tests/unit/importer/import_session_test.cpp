// A log through the importer into the history (importer/import_session.hpp): its own times,
// `imported` as its source, re-import without duplicates, lost GPUs, dry runs.
#include "importer/import_session.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "store/data_sources.hpp"
#include "store/imports.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::importer {
namespace import_session_test {

// TEXT as a FILE* (the importer reads streams, never whole files).
struct TextStream {
  explicit TextStream(const std::string& text) : copy(text) { file = fmemopen(copy.data(), copy.size(), "r"); }
  ~TextStream() {
    if (file) std::fclose(file);
  }
  std::string copy;
  std::FILE* file = nullptr;
};

const char* kDmonLog =
    "# gpu   pwr gtemp    sm\n"
    "# Idx     W     C     %\n"
    "    0    27    23    10\n"
    "    1    29    26    20\n"
    "    0    84    46    90\n"
    "    1    85    46    70\n"
    "    0     -     -";

core::Result<ImportSummary> import_text(const std::string& text, const std::string& label, store::HistoryDatabase* db,
                                        ParseOptions options = {}) {
  TextStream in(text);
  return import_log(in.file, label, options, db);
}

std::int64_t count_of(store::HistoryDatabase& db, const std::string& sql) {
  return db.sql().execAndGet(sql).getInt64();
}

TEST(ImportSession, WritesTheLogsOwnTimesAsImportedData) {
  store::testing::TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  ParseOptions options;
  options.start_ms = 1700000000000;
  auto summary = import_text(kDmonLog, "/logs/k80-dmon.log", db->get(), options);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->file, "k80-dmon.log");
  EXPECT_EQ(summary->rows, 4u);
  EXPECT_EQ(summary->gpus.size(), 2u);
  EXPECT_EQ(summary->first_ms, 1700000000000);
  EXPECT_EQ(summary->last_ms, 1700000001000);
  EXPECT_EQ(count_of(**db, "SELECT count(*) FROM gpu_samples"), 4);
  EXPECT_EQ(count_of(**db, "SELECT count(*) FROM gpus WHERE gpu_key LIKE 'import:k80-dmon.log:%'"), 2);
  EXPECT_EQ(count_of(**db, "SELECT min(time_ms) FROM gpu_samples"), 1700000000000);
  // A field the log lacks is NULL, never a modelled value.
  EXPECT_EQ(count_of(**db, "SELECT count(*) FROM gpu_samples WHERE memory_used_bytes IS NOT NULL OR "
                           "utilization_memory_percent IS NOT NULL"),
            0);
  EXPECT_EQ(count_of(**db, "SELECT sum(utilization_gpu_percent) FROM gpu_samples"), 190);
  auto sources = store::read_sources(**db);
  ASSERT_TRUE(sources) << sources.error().message;
  ASSERT_EQ(sources->size(), 1u);
  EXPECT_TRUE((*sources)[0].source.imported);
  EXPECT_EQ((*sources)[0].source.scenario, "k80-dmon.log");
  EXPECT_NE(store::provenance_note(store::provenance_of(*sources)).find("imported data (k80-dmon.log)"), std::string::npos);
  auto lost = store::read_lost_gpus(**db, std::nullopt, std::nullopt);
  ASSERT_TRUE(lost) << lost.error().message;
  ASSERT_EQ(lost->size(), 1u);
  EXPECT_EQ((*lost)[0].gpu, 0u);
  EXPECT_EQ((*lost)[0].time_ms, 1700000002000);

  // The same file again: no duplicate rows, one import record, one lost event.
  ASSERT_TRUE(import_text(kDmonLog, "/elsewhere/k80-dmon.log", db->get(), options));
  EXPECT_EQ(count_of(**db, "SELECT count(*) FROM gpu_samples"), 4);
  EXPECT_EQ(count_of(**db, "SELECT count(*) FROM imports"), 1);
  EXPECT_EQ(count_of(**db, "SELECT count(*) FROM gpu_lost_events"), 1);
}

TEST(ImportSession, ADryRunWritesNothingAndSaysWhatItWould) {
  ParseOptions options;
  options.start_ms = 1700000000000;
  auto summary = import_text(kDmonLog, "k80.log", nullptr, options);
  ASSERT_TRUE(summary) << summary.error().message;
  const std::string text = render_import_summary(*summary, true);
  EXPECT_NE(text.find("would import: 4 rows"), std::string::npos) << text;
  EXPECT_NE(text.find("gpus: 2 (0, 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("range: 2023-11-14T22:13:20.000Z to 2023-11-14T22:13:21.000Z"), std::string::npos) << text;
  EXPECT_NE(text.find("fields: utilization.gpu, temperature.gpu, power.draw"), std::string::npos) << text;
  EXPECT_NE(text.find("lost: GPU 0"), std::string::npos) << text;
  EXPECT_NE(text.find("1 header line"), std::string::npos) << text;
}

// A log written on Windows (CRLF) reads as the same log: the line reader drops the CR before any
// parser sees the line.
TEST(ImportSession, ACrlfLogReadsAsItsLfTwin) {
  ParseOptions options;
  options.start_ms = 1700000000000;
  std::string with_blank = kDmonLog;
  with_blank.insert(with_blank.find("    0    27"), "\n");  // a blank line among the rows: "\r" alone in CRLF
  std::string crlf;
  for (char c : with_blank) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto lf = import_text(with_blank, "k80.log", nullptr, options);
  auto windows = import_text(crlf, "k80.log", nullptr, options);
  ASSERT_TRUE(lf) << lf.error().message;
  ASSERT_TRUE(windows) << windows.error().message;
  EXPECT_EQ(render_import_summary(*windows, true), render_import_summary(*lf, true));
}

TEST(ImportSession, ErrorsNameFileLineAndColumn) {
  auto summary = import_text("timestamp, utilization.gpu [%]\n2025/06/13 00:27:52.195, 45 %\n2025/06/13 00:27:53.195, x\n",
                             "q.csv", nullptr);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().message.rfind("q.csv:3:26: ", 0), 0u) << summary.error().message;
}

TEST(ImportSession, LongLinesAreRefusedNotHeld) {
  auto summary = import_text("timestamp, utilization.gpu [%]\n" + std::string(kMaxLineBytes + 10, 'x'), "big.csv", nullptr);
  ASSERT_FALSE(summary);
  EXPECT_NE(summary.error().message.find("big.csv:2: a line longer than"), std::string::npos) << summary.error().message;
}

}  // namespace import_session_test
}  // namespace gpuwatch::importer
