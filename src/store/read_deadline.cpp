#include "store/read_deadline.hpp"

#include "store/history_database.hpp"

#include <SQLiteCpp/Database.h>
#include <sqlite3.h>

#include <time.h>

#include <cstdio>

namespace gpuwatch::store {

ReadDeadline::ReadDeadline(sqlite3* handle, std::chrono::milliseconds budget, const std::atomic<bool>* cancelled,
                           std::string expired_note, Clock clock)
    : handle_(budget.count() > 0 || cancelled != nullptr ? handle : nullptr),
      clock_(clock),
      until_(budget.count() > 0 ? now() + budget : std::chrono::nanoseconds::max()),
      cancelled_(cancelled),
      expired_note_(std::move(expired_note)) {
  // Called every 1,000 virtual machine instructions: a few microseconds apart.
  if (handle_ != nullptr) sqlite3_progress_handler(handle_, 1000, &ReadDeadline::progress, this);
}

ReadDeadline::~ReadDeadline() {
  if (handle_ != nullptr) sqlite3_progress_handler(handle_, 0, nullptr, nullptr);
}

std::chrono::nanoseconds ReadDeadline::now() const {
  if (clock_ == Clock::Wall) return std::chrono::steady_clock::now().time_since_epoch();
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

int ReadDeadline::progress(void* self) {
  auto& deadline = *static_cast<ReadDeadline*>(self);
  if (deadline.cancelled_ != nullptr && deadline.cancelled_->load(std::memory_order_relaxed)) return 1;
  if (deadline.now() <= deadline.until_) return 0;
  if (!deadline.expired_ && !deadline.expired_note_.empty()) std::fprintf(stderr, "%s\n", deadline.expired_note_.c_str());
  deadline.expired_ = true;
  return 1;
}

std::unique_ptr<ReadDeadline> read_deadline_on(const HistoryDatabase& db, std::chrono::milliseconds budget,
                                               const std::atomic<bool>* cancelled) {
  return std::make_unique<ReadDeadline>(db.sql().getHandle(), budget, cancelled);
}

}  // namespace gpuwatch::store
