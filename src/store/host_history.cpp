#include "store/host_history.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "host_signals/host_fields.hpp"
#include "store/history_reader_internal.hpp"

namespace gpuwatch::store {
namespace host_history_detail {  // unity builds: names of this file only

using host_signals::HostSample;

using Setter = void (*)(HostSample&, std::optional<double>);

// The way back from a stored value to its HostSample member: host_fields()' own setter, by key.
const std::map<std::string_view, Setter>& setters() {
  static const std::map<std::string_view, Setter> table = [] {
    std::map<std::string_view, Setter> out;
    for (const auto& field : host_signals::host_fields()) out.emplace(field.key, field.set);
    return out;
  }();
  return table;
}

constexpr const char* kHostRollupSuffixes[] = {"_min", "_avg", "_max"};

std::set<std::string> columns_of(SQLite::Database& db, const std::string& table) {
  std::set<std::string> names;
  SQLite::Statement info(db, "PRAGMA table_info(" + table + ")");
  while (info.executeStep()) names.insert(info.getColumn(1).getString());
  return names;
}

std::string host_rollup_table_sql(const std::string& table) {
  std::string sql = "CREATE TABLE IF NOT EXISTS " + table + " (\n  time_ms INTEGER PRIMARY KEY,\n  samples INTEGER NOT NULL";
  for (const auto& name : host_sample_columns()) {
    for (const char* suffix : kHostRollupSuffixes) sql += ",\n  " + name + suffix + " REAL";
  }
  return sql + "\n);\n";
}

std::string host_rollup_names() {
  std::string names;
  for (const auto& name : host_sample_columns()) names += ", " + name + "_min, " + name + "_avg, " + name + "_max";
  return names;
}

std::chrono::system_clock::time_point host_at_ms(std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

}  // namespace host_history_detail

using namespace host_history_detail;

std::vector<std::string> host_sample_columns() {
  std::vector<std::string> names;
  for (const auto& field : host_signals::host_fields()) names.emplace_back(field.key);
  return names;
}

std::vector<std::string> host_rollup_tables() { return {"host_samples_1m", "host_samples_1h"}; }

std::string schema_v16_sql() {
  // One row per sample time: time_ms is the GPU rows' (the snapshot's), so a reader joins them.
  // IF NOT EXISTS: a file whose user_version was set back runs the migration again (issue 24).
  std::string sql = "CREATE TABLE IF NOT EXISTS host_samples (\n  time_ms INTEGER PRIMARY KEY";
  for (const auto& name : host_sample_columns()) sql += ",\n  " + name + " REAL";
  sql += "\n);\n";
  for (const auto& table : host_rollup_tables()) sql += host_rollup_table_sql(table);
  // The CPU of each GPU process's tree (its DataLoader workers) at each sample: cpu_cores in
  // cores (NULL: the first reading of that tree), processes counts the tree, root included.
  sql += "CREATE TABLE IF NOT EXISTS host_process_trees (\n  time_ms INTEGER NOT NULL,\n  pid INTEGER NOT NULL,\n"
         "  cpu_cores REAL,\n  processes INTEGER NOT NULL,\n  PRIMARY KEY (time_ms, pid)\n) WITHOUT ROWID;\n";
  return sql;
}

void add_missing_host_columns(SQLite::Database& db) {
  const auto raw = columns_of(db, "host_samples");
  if (raw.empty()) return;  // before migration 16
  for (const auto& name : host_sample_columns()) {
    if (raw.count(name) == 0) db.exec("ALTER TABLE host_samples ADD COLUMN " + name + " REAL");
  }
  for (const auto& table : host_rollup_tables()) {
    const auto present = columns_of(db, table);
    for (const auto& name : host_sample_columns()) {
      for (const char* suffix : kHostRollupSuffixes) {
        if (present.count(name + suffix) == 0) db.exec("ALTER TABLE " + table + " ADD COLUMN " + name + suffix + " REAL");
      }
    }
  }
}

HostRow host_row(std::int64_t time_ms, const host_signals::HostSample& sample) {
  HostRow row;
  row.time_ms = time_ms;
  const auto& fields = host_signals::host_fields();
  row.values.reserve(fields.size());
  for (const auto& field : fields) row.values.push_back(field.get(sample));
  row.trees = sample.process_trees;
  return row;
}

HostRowWriter::HostRowWriter() = default;
HostRowWriter::~HostRowWriter() = default;

void HostRowWriter::write(SQLite::Database& db, const std::vector<HostRow>& rows) {
  if (rows.empty()) return;
  if (!insert_sample_) {
    std::string names = "time_ms", params = "?";
    for (const auto& name : host_sample_columns()) {
      names += ", " + name;
      params += ", ?";
    }
    insert_sample_ = std::make_unique<SQLite::Statement>(
        db, "INSERT OR REPLACE INTO host_samples (" + names + ") VALUES (" + params + ")");
    insert_tree_ = std::make_unique<SQLite::Statement>(
        db, "INSERT OR REPLACE INTO host_process_trees (time_ms, pid, cpu_cores, processes) VALUES (?, ?, ?, ?)");
  }
  for (const auto& row : rows) {
    auto& insert = *insert_sample_;
    insert.reset();
    insert.bind(1, static_cast<std::int64_t>(row.time_ms));
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      const int position = static_cast<int>(i) + 2;
      if (row.values[i] && std::isfinite(*row.values[i])) insert.bind(position, *row.values[i]);
      else insert.bind(position);  // NULL: absent
    }
    insert.exec();
    for (const auto& tree : row.trees) {
      auto& add = *insert_tree_;
      add.reset();
      add.bind(1, static_cast<std::int64_t>(row.time_ms));
      add.bind(2, static_cast<std::int64_t>(tree.pid));
      if (tree.cpu_cores && std::isfinite(*tree.cpu_cores)) add.bind(3, *tree.cpu_cores);
      else add.bind(3);
      add.bind(4, static_cast<std::int64_t>(tree.processes));
      add.exec();
    }
  }
}

struct HostCursor::State {
  std::optional<reader_detail::RawStatement> samples, trees;
  std::vector<Setter> setters;  // by column, nullptr: no way back (absent)
  bool more_samples = false, more_trees = false;
};

namespace host_history_detail {

std::string host_range_sql(std::optional<std::int64_t> since_ms, std::optional<std::int64_t> until_ms) {
  std::string sql = " WHERE 1";
  if (since_ms) sql += " AND time_ms >= :since";
  if (until_ms) sql += " AND time_ms <= :until";
  return sql;
}

void bind_host_range(reader_detail::RawStatement& statement, std::optional<std::int64_t> since_ms,
                     std::optional<std::int64_t> until_ms) {
  if (since_ms) statement.bind(":since", *since_ms);
  if (until_ms) statement.bind(":until", *until_ms);
}

}  // namespace host_history_detail

HostCursor::HostCursor(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                       std::optional<std::int64_t> until_ms)
    : state_(std::make_unique<State>()) {
  const auto present = reader_detail::table_columns(db, "host_samples");
  if (present.empty()) return;  // a file from before schema 16
  std::string sql = "SELECT time_ms";
  for (const auto& name : host_sample_columns()) {
    sql += ", " + reader_detail::column_or_null(name, present);
    const auto setter = setters().find(name);
    state_->setters.push_back(setter == setters().end() ? nullptr : setter->second);
  }
  state_->samples.emplace(db, sql + " FROM host_samples" + host_range_sql(since_ms, until_ms) + " ORDER BY time_ms");
  bind_host_range(*state_->samples, since_ms, until_ms);
  state_->more_samples = state_->samples->step();
  if (!reader_detail::table_columns(db, "host_process_trees").empty()) {
    state_->trees.emplace(db, "SELECT time_ms, pid, cpu_cores, processes FROM host_process_trees" +
                                  host_range_sql(since_ms, until_ms) + " ORDER BY time_ms, pid");
    bind_host_range(*state_->trees, since_ms, until_ms);
    state_->more_trees = state_->trees->step();
  }
}

HostCursor::~HostCursor() = default;

std::shared_ptr<const host_signals::HostSample> HostCursor::at(std::int64_t time_ms) {
  State& s = *state_;
  if (!s.samples) return nullptr;
  auto row_ms = [](reader_detail::RawStatement& statement) { return sqlite3_column_int64(statement.get(), 0); };
  while (s.more_samples && row_ms(*s.samples) < time_ms) s.more_samples = s.samples->step();
  if (!s.more_samples || row_ms(*s.samples) != time_ms) return nullptr;
  auto sample = std::make_shared<host_signals::HostSample>();
  sample->timestamp = host_at_ms(time_ms);
  sqlite3_stmt* row = s.samples->get();
  for (std::size_t i = 0; i < s.setters.size(); ++i) {
    const int column = static_cast<int>(i) + 1;
    if (s.setters[i] == nullptr || sqlite3_column_type(row, column) == SQLITE_NULL) continue;
    s.setters[i](*sample, sqlite3_column_double(row, column));
  }
  s.more_samples = s.samples->step();
  if (s.trees) {
    while (s.more_trees && row_ms(*s.trees) < time_ms) s.more_trees = s.trees->step();
    for (; s.more_trees && row_ms(*s.trees) == time_ms; s.more_trees = s.trees->step()) {
      sqlite3_stmt* tree = s.trees->get();
      host_signals::ProcessTreeRates rates;
      rates.pid = static_cast<unsigned>(sqlite3_column_int64(tree, 1));
      if (sqlite3_column_type(tree, 2) != SQLITE_NULL) rates.cpu_cores = sqlite3_column_double(tree, 2);
      rates.processes = static_cast<std::size_t>(sqlite3_column_int64(tree, 3));
      sample->process_trees.push_back(rates);
    }
  }
  return sample;
}

core::Result<std::vector<std::shared_ptr<const host_signals::HostSample>>> read_host_samples(
    const HistoryDatabase& db, std::optional<std::int64_t> since_ms, std::optional<std::int64_t> until_ms) {
  try {
    std::vector<std::int64_t> times;
    if (!reader_detail::table_columns(db, "host_samples").empty()) {
      reader_detail::RawStatement select(db, "SELECT time_ms FROM host_samples" + host_range_sql(since_ms, until_ms) +
                                                 " ORDER BY time_ms");
      bind_host_range(select, since_ms, until_ms);
      while (select.step()) times.push_back(sqlite3_column_int64(select.get(), 0));
    }
    std::vector<std::shared_ptr<const host_signals::HostSample>> out;
    HostCursor cursor(db, since_ms, until_ms);
    for (std::int64_t ms : times) {
      if (auto sample = cursor.at(ms)) out.push_back(std::move(sample));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the host history: ") + e.what(), 1);
  }
}

std::string host_raw_to_minutes_sql() {
  std::string select;
  for (const auto& name : host_sample_columns()) select += ", min(" + name + "), avg(" + name + "), max(" + name + ")";
  return "INSERT OR REPLACE INTO host_samples_1m (time_ms, samples" + host_rollup_names() +
         ") SELECT (time_ms / 60000) * 60000, count(*)" + select + " FROM host_samples WHERE time_ms < :cutoff GROUP BY 1";
}

std::string host_minutes_to_hours_sql() {
  std::string select;
  for (const auto& name : host_sample_columns()) {
    const std::string avg = name + "_avg";
    select += ", min(" + name + "_min), sum(" + avg + " * samples) / sum(CASE WHEN " + avg +
              " IS NOT NULL THEN samples END), max(" + name + "_max)";
  }
  return "INSERT OR REPLACE INTO host_samples_1h (time_ms, samples" + host_rollup_names() +
         ") SELECT (time_ms / 3600000) * 3600000, sum(samples)" + select +
         " FROM host_samples_1m WHERE time_ms < :cutoff GROUP BY 1";
}

}  // namespace gpuwatch::store
