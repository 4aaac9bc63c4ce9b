#pragma once
// A deadline on the reads of one SQLite connection (issue 31): every statement on it is
// interrupted (SQLITE_INTERRUPT, "interrupted") once the budget has passed or a cancel flag
// turned true. serve's /api/v1/history reads (store/history_buckets.hpp) hold one per
// request; the CLI readers (history, report, diagnose, status) one per connection, from the
// open (store/history_database.hpp), so a crafted file cannot keep a command busy for long.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>

struct sqlite3;

namespace gpuwatch::store {

class HistoryDatabase;

class ReadDeadline {
 public:
  // What the budget counts. Wall: time on the steady clock (serve's requests, whose waiting
  // must end too). ThreadCpu: the reading thread's CPU time (the CLI readers, which write as
  // they read: a reader blocked on `| less` uses none, while a crafted query burns it).
  enum class Clock { Wall, ThreadCpu };

  // BUDGET 0: no time bound; CANCELLED nullptr: no cancel flag; with neither it does nothing.
  // EXPIRED_NOTE, when not empty, is written once to stderr when the budget runs out (the
  // command's own error line then says "interrupted").
  ReadDeadline(sqlite3* handle, std::chrono::milliseconds budget, const std::atomic<bool>* cancelled,
               std::string expired_note = {}, Clock clock = Clock::Wall);
  ~ReadDeadline();
  ReadDeadline(const ReadDeadline&) = delete;
  ReadDeadline& operator=(const ReadDeadline&) = delete;

  // Whether the budget ran out (a statement was interrupted for it).
  bool expired() const { return expired_; }

 private:
  static int progress(void* self);
  std::chrono::nanoseconds now() const;
  sqlite3* handle_;
  Clock clock_;
  std::chrono::nanoseconds until_;
  const std::atomic<bool>* cancelled_;
  std::string expired_note_;
  bool expired_ = false;
};

// A Wall deadline on DB's connection, for readers outside store/ (serve's /api/v1/findings:
// recorder/store_findings.hpp), which never see sqlite3.
std::unique_ptr<ReadDeadline> read_deadline_on(const HistoryDatabase& db, std::chrono::milliseconds budget,
                                               const std::atomic<bool>* cancelled);

}  // namespace gpuwatch::store
