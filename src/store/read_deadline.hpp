#pragma once
// A deadline on the reads of one SQLite connection (issue 31): every statement on it is
// interrupted (SQLITE_INTERRUPT, "interrupted") once the budget has passed or a cancel flag
// turned true. serve's /api/v1/history reads (store/history_buckets.hpp) hold one per
// request; the CLI readers (history, report, diagnose, status) one per connection, from the
// open (store/history_database.hpp), so a crafted file cannot keep a command busy for long.
#include <atomic>
#include <chrono>
#include <string>

struct sqlite3;

namespace gpuwatch::store {

class ReadDeadline {
 public:
  // BUDGET 0: no time bound; CANCELLED nullptr: no cancel flag; with neither it does nothing.
  // EXPIRED_NOTE, when not empty, is written once to stderr when the budget runs out (the
  // command's own error line then says "interrupted").
  ReadDeadline(sqlite3* handle, std::chrono::milliseconds budget, const std::atomic<bool>* cancelled,
               std::string expired_note = {});
  ~ReadDeadline();
  ReadDeadline(const ReadDeadline&) = delete;
  ReadDeadline& operator=(const ReadDeadline&) = delete;

  // Whether the budget ran out (a statement was interrupted for it).
  bool expired() const { return expired_; }

 private:
  static int progress(void* self);
  sqlite3* handle_;
  std::chrono::steady_clock::time_point until_;
  const std::atomic<bool>* cancelled_;
  std::string expired_note_;
  bool expired_ = false;
};

}  // namespace gpuwatch::store
