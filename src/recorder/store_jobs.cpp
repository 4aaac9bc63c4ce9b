#include "recorder/store_jobs.hpp"

#include <mutex>
#include <utility>

#include "history/lost_monitors.hpp"
#include "store/history_database.hpp"
#include "store/read_deadline.hpp"

namespace gpuwatch::recorder {
namespace {

struct JobsConnection {
  std::string path;
  std::chrono::milliseconds budget;
  std::shared_ptr<const std::atomic<bool>> stopping;  // may be null
  std::mutex mutex;                                   // held for one read
  std::unique_ptr<store::HistoryDatabase> db;         // opened on first use
};

core::Result<std::vector<store::JobRow>> read_jobs(JobsConnection& connection, std::size_t limit) {
  std::unique_lock turn(connection.mutex, std::try_to_lock);
  if (!turn.owns_lock()) return core::make_error("the history database is busy with another jobs request: try again", exporter::kJobsBusy);
  if (!connection.db) {
    auto opened = store::HistoryDatabase::open(connection.path, store::OpenOptions{.read_only = true, .single_thread = true});
    if (!opened) return opened.error();
    connection.db = std::move(*opened);
  }
  auto deadline = store::read_deadline_on(*connection.db, connection.budget, connection.stopping.get());
  auto jobs = store::list_jobs(*connection.db, limit);
  const bool expired = deadline->expired();
  deadline.reset();
  if (connection.stopping && connection.stopping->load()) return core::make_error("the server is stopping", exporter::kJobsBusy);
  if (expired)
    return core::make_error("reading the jobs took longer than " + std::to_string(connection.budget.count() / 1000) + " s", exporter::kJobsBusy);
  if (!jobs) return jobs.error();
  history::mark_lost_monitors(*jobs);  // a job whose `gpuwatch run` died: "monitor lost" (issue 31)
  return jobs;
}

}  // namespace

exporter::JobsReader make_store_jobs_reader(std::string db_path, std::chrono::milliseconds time_budget,
                                            std::shared_ptr<const std::atomic<bool>> stopping) {
  auto connection = std::make_shared<JobsConnection>();
  connection->path = std::move(db_path);
  connection->budget = time_budget;
  connection->stopping = std::move(stopping);
  return [connection](std::size_t limit) { return read_jobs(*connection, limit); };
}

}  // namespace gpuwatch::recorder
