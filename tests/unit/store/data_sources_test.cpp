#include "store/data_sources.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_writer.hpp"
#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace data_sources_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::make_snapshot;
using testing::TempDir;

constexpr std::int64_t kT0 = 1'780'000'000'000;

void write(HistoryDatabase& db, const DataSource& source, std::int64_t from_ms, int samples) {
  WriterOptions options;
  options.source = source;
  HistoryWriter writer(db, options);
  for (int i = 0; i < samples; ++i) writer.add(make_snapshot(from_ms + i * 1000, 2));
  ASSERT_TRUE(writer.flush());
}

// issue 9: `--simulate demo record` wrote into the real history with nothing to tell the
// rows apart. The writer now records where its rows come from.
TEST(DataSources, TheWriterRecordsASimulatedScenarioWithItsTimeSpan) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  write(**db, DataSource{true, "demo"}, kT0, 3);
  write(**db, DataSource{true, "demo"}, kT0 + 10'000, 2);  // a second flush widens the span
  auto sources = read_sources(**db);
  ASSERT_TRUE(sources) << sources.error().message;
  ASSERT_EQ(sources->size(), 1u);
  EXPECT_EQ((*sources)[0].source, (DataSource{true, "demo"}));
  EXPECT_EQ((*sources)[0].first_ms, kT0);
  EXPECT_EQ((*sources)[0].last_ms, kT0 + 11'000);
  const auto p = provenance_of(*sources);
  EXPECT_TRUE(p.known && p.simulated && !p.real);
  EXPECT_EQ(provenance_note(p),
            "simulated data (scenario demo): recorded on gpuwatch's simulated driver, not a real GPU");
}

TEST(DataSources, RealAndSimulatedDataInOneFileAreToldApartByTime) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  write(**db, DataSource{}, kT0, 5);                                     // real: t0 .. t0+4s
  write(**db, DataSource{true, "/tmp/node.yaml"}, kT0 + 60'000, 5);      // simulated a minute later
  auto all = read_sources(**db);
  ASSERT_TRUE(all);
  const auto mixed = provenance_of(*all);
  EXPECT_TRUE(mixed.real && mixed.simulated);
  EXPECT_EQ(provenance_note(mixed),
            "mixed data: real GPUs and gpuwatch's simulated driver (scenario /tmp/node.yaml) in this range");
  auto early = read_sources(**db, kT0, kT0 + 30'000);
  ASSERT_TRUE(early);
  const auto real_only = provenance_of(*early);
  EXPECT_TRUE(real_only.known && real_only.real && !real_only.simulated);
  EXPECT_EQ(provenance_note(real_only), "");  // real data needs no note
  auto late = read_sources(**db, kT0 + 60'000, std::nullopt);
  ASSERT_TRUE(late);
  EXPECT_TRUE(provenance_of(*late).simulated && !provenance_of(*late).real);
}

TEST(DataSources, AFileOlderThanSchemaFourHasNoKnownSource) {
  TempDir dir;
  {
    SQLite::Database raw(dir.file("v3.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    for (const auto& m : migrations()) {
      if (m.version <= 3) raw.exec(m.sql);
    }
    raw.exec("PRAGMA user_version = 3");
  }
  {  // a reader cannot migrate: no table, no source, no error
    auto reader = HistoryDatabase::open(dir.file("v3.db"), OpenOptions{.read_only = true});
    ASSERT_TRUE(reader) << reader.error().message;
    auto sources = read_sources(**reader);
    ASSERT_TRUE(sources) << sources.error().message;
    EXPECT_TRUE(sources->empty());
    EXPECT_FALSE(provenance_of(*sources).known);
  }
  auto writer = HistoryDatabase::open(dir.file("v3.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_EQ((*writer)->schema_version(), latest_schema_version());
  EXPECT_GE(latest_schema_version(), 4);
}

}  // namespace data_sources_test
}  // namespace gpuwatch::store
