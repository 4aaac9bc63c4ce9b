#include "store/data_sources.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>

#include "store/imports.hpp"

namespace gpuwatch::store {

std::string schema_v4_sql() {
  // simulated: 0 real NVML, 1 gpuwatch's simulated driver; scenario: "" when real.
  return "CREATE TABLE sources (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  simulated INTEGER NOT NULL,\n"
         "  scenario TEXT NOT NULL DEFAULT '',\n"
         "  first_seen_ms INTEGER NOT NULL,\n"
         "  last_seen_ms INTEGER NOT NULL,\n"
         "  UNIQUE (simulated, scenario)\n"
         ");\n";
}

core::Result<std::vector<SourceRecord>> read_sources(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                     std::optional<std::int64_t> until_ms) {
  try {
    std::vector<SourceRecord> out;
    if (db.sql().execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sources'").getInt() == 0) {
      return out;  // older than schema 4
    }
    std::string sql = "SELECT simulated, scenario, first_seen_ms, last_seen_ms FROM sources WHERE 1";
    if (since_ms) sql += " AND last_seen_ms >= :since";
    if (until_ms) sql += " AND first_seen_ms <= :until";
    SQLite::Statement select(db.sql(), sql + " ORDER BY first_seen_ms, id");
    if (since_ms) select.bind(":since", static_cast<std::int64_t>(*since_ms));
    if (until_ms) select.bind(":until", static_cast<std::int64_t>(*until_ms));
    while (select.executeStep()) {
      SourceRecord record;
      record.source.simulated = select.getColumn(0).getInt() != 0;
      record.source.scenario = select.getColumn(1).getString();
      record.first_ms = select.getColumn(2).getInt64();
      record.last_ms = select.getColumn(3).getInt64();
      out.push_back(std::move(record));
    }
    auto imports = read_import_records(db, since_ms, until_ms);
    if (!imports) return imports.error();
    for (const auto& imported : *imports) {
      out.push_back(SourceRecord{DataSource{false, imported.file, true}, imported.first_ms, imported.last_ms});
    }
    std::stable_sort(out.begin(), out.end(), [](const SourceRecord& a, const SourceRecord& b) { return a.first_ms < b.first_ms; });
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the sources of the history: ") + e.what(), 1);
  }
}

Provenance provenance_of(const std::vector<SourceRecord>& sources) {
  Provenance p;
  p.known = !sources.empty();
  for (const auto& record : sources) {
    if (record.source.imported) {
      p.real = true;
      if (std::find(p.imported_files.begin(), p.imported_files.end(), record.source.scenario) == p.imported_files.end()) {
        p.imported_files.push_back(record.source.scenario);
      }
      continue;
    }
    if (!record.source.simulated) {
      p.real = true;
      continue;
    }
    p.simulated = true;
    if (std::find(p.scenarios.begin(), p.scenarios.end(), record.source.scenario) == p.scenarios.end()) {
      p.scenarios.push_back(record.source.scenario);
    }
  }
  return p;
}

std::string provenance_note(const Provenance& provenance) {
  if (!provenance.simulated && !provenance.imported_files.empty()) {
    std::string files;
    for (const auto& file : provenance.imported_files) files += (files.empty() ? "" : ", ") + file;
    return "imported data (" + files + "): read from a log file by `gpuwatch import`";
  }
  if (!provenance.simulated) return {};
  std::string names;
  for (const auto& scenario : provenance.scenarios) names += (names.empty() ? "" : ", ") + scenario;
  const std::string which = (provenance.scenarios.size() > 1 ? "scenarios " : "scenario ") + names;
  if (provenance.real) return "mixed data: real GPUs and gpuwatch's simulated driver (" + which + ") in this range";
  return "simulated data (" + which + "): recorded on gpuwatch's simulated driver, not a real GPU";
}

}  // namespace gpuwatch::store
