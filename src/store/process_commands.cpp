#include "store/process_commands.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>

#include "store/sql_values.hpp"
#include "store/untrusted_file.hpp"

namespace gpuwatch::store {
namespace {

bool has_command_table(const HistoryDatabase& db) {
  return db.sql()
             .execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'process_commands'")
             .getInt() > 0;
}

}  // namespace

std::string clip_command(const std::string& command, std::size_t max_bytes) {
  if (command.size() <= max_bytes) return command;
  static const std::string kEllipsis = "\xE2\x80\xA6";  // …
  if (max_bytes < kEllipsis.size()) return std::string();
  std::size_t cut = max_bytes - kEllipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(command[cut]) & 0xC0) == 0x80) --cut;  // not mid-character
  return command.substr(0, cut) + kEllipsis;
}

std::string schema_v11_sql() {
  return "CREATE TABLE process_commands (\n"
         "  gpu_key TEXT NOT NULL,\n"      // as gpus.gpu_key: the UUID, else pci:BUS or index:N
         "  pid INTEGER NOT NULL,\n"
         "  first_ms INTEGER NOT NULL,\n"  // first sample of the span (Unix ms)
         "  last_ms INTEGER NOT NULL,\n"   // last sample of the span
         "  command TEXT NOT NULL,\n"      // /proc/PID/cmdline, arguments joined by spaces, clipped
         "  PRIMARY KEY (gpu_key, pid, first_ms)\n"
         ") WITHOUT ROWID;\n"
         "CREATE INDEX process_commands_last ON process_commands(last_ms);\n";
}

core::Result<void> write_command_spans(HistoryDatabase& db, const std::vector<CommandSpanRow>& rows) {
  if (rows.empty()) return {};
  try {
    SQLite::Transaction transaction(db.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement upsert(db.sql(),
                             "INSERT INTO process_commands (gpu_key, pid, first_ms, last_ms, command) "
                             "VALUES (:key, :pid, :first, :last, :command) ON CONFLICT (gpu_key, pid, first_ms) "
                             "DO UPDATE SET last_ms = max(last_ms, excluded.last_ms)");
    for (const auto& row : rows) {
      if (row.command.empty()) continue;  // absent is no row, never ''
      upsert.bind(":key", row.gpu_key);
      upsert.bind(":pid", static_cast<std::int64_t>(row.pid));
      upsert.bind(":first", static_cast<std::int64_t>(row.first_ms));
      upsert.bind(":last", static_cast<std::int64_t>(row.last_ms));
      upsert.bind(":command", clip_command(row.command));
      upsert.exec();
      upsert.reset();
    }
    transaction.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot write process commands: ") + e.what(), 1);
  }
}

core::Result<std::vector<CommandSpanRow>> read_command_spans(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                             std::optional<std::int64_t> until_ms) {
  std::vector<CommandSpanRow> out;
  try {
    if (!has_command_table(db)) return out;
    // A file's command is clipped on read as on write (issue 31): substr keeps the row's read
    // bounded (characters: at most 4 bytes each), clip_command cuts to the bytes.
    std::string sql = "SELECT gpu_key, pid, first_ms, last_ms, substr(command, 1, " + std::to_string(kMaxCommandBytes + 1) +
                      ") FROM process_commands WHERE 1" + reader_time_sql(db.sql().getHandle(), "first_ms") +
                      reader_time_sql(db.sql().getHandle(), "last_ms");
    if (since_ms) sql += " AND last_ms >= :since";
    if (until_ms) sql += " AND first_ms <= :until";
    SQLite::Statement select(db.sql(), sql + " ORDER BY gpu_key, pid, first_ms");
    if (since_ms) select.bind(":since", static_cast<std::int64_t>(*since_ms));
    if (until_ms) select.bind(":until", static_cast<std::int64_t>(*until_ms));
    while (select.executeStep()) {
      CommandSpanRow row;
      row.gpu_key = select.getColumn(0).getString();
      row.pid = static_cast<std::uint32_t>(select.getColumn(1).getInt64());
      row.first_ms = select.getColumn(2).getInt64();
      row.last_ms = select.getColumn(3).getInt64();
      row.command = clip_command(select.getColumn(4).getString());
      out.push_back(std::move(row));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read process commands: ") + e.what(), 1);
  }
}

CommandIndex::CommandIndex(std::vector<CommandSpanRow> spans) {
  for (auto& span : spans) spans_[{span.gpu_key, span.pid}].push_back(std::move(span));
  for (auto& [key, list] : spans_) {
    std::sort(list.begin(), list.end(), [](const CommandSpanRow& a, const CommandSpanRow& b) { return a.first_ms < b.first_ms; });
  }
}

const std::vector<CommandSpanRow>* CommandIndex::spans_of(const std::string& gpu_key, std::uint32_t pid) const {
  auto found = spans_.find({gpu_key, pid});
  return found == spans_.end() ? nullptr : &found->second;
}

const std::string* CommandIndex::at(const std::string& gpu_key, std::uint32_t pid, std::int64_t time_ms) const {
  return at(spans_of(gpu_key, pid), time_ms);
}

const std::string* CommandIndex::at(const std::vector<CommandSpanRow>* spans, std::int64_t time_ms) {
  if (spans == nullptr || spans->empty()) return nullptr;
  const auto& list = *spans;
  // The last span that starts at or before TIME_MS, if it reaches it.
  auto after = std::upper_bound(list.begin(), list.end(), time_ms,
                                [](std::int64_t t, const CommandSpanRow& span) { return t < span.first_ms; });
  if (after == list.begin()) return nullptr;
  const auto& span = *std::prev(after);
  return time_ms <= span.last_ms ? &span.command : nullptr;
}

}  // namespace gpuwatch::store
