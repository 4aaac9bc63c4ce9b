#include "recorder/store_findings.hpp"

#include <mutex>
#include <utility>

#include "history/findings.hpp"
#include "store/history_database.hpp"
#include "store/read_deadline.hpp"

namespace gpuwatch::recorder {
namespace {

struct FindingsConnection {
  std::string path;
  std::chrono::milliseconds budget;
  std::shared_ptr<const std::atomic<bool>> stopping;  // may be null
  std::mutex mutex;                                   // held for one diagnosis
  std::unique_ptr<store::HistoryDatabase> db;         // opened on first use
};

core::Result<exporter::RecordedFindings> diagnose_range(FindingsConnection& connection, const exporter::FindingsRange& range) {
  std::unique_lock turn(connection.mutex, std::try_to_lock);
  if (!turn.owns_lock())
    return core::make_error("the history database is busy with another findings request: try again", exporter::kFindingsBusy);
  if (!connection.db) {
    auto opened = store::HistoryDatabase::open(connection.path, store::OpenOptions{.read_only = true, .single_thread = true});
    if (!opened) return opened.error();
    connection.db = std::move(*opened);
  }
  auto deadline = store::read_deadline_on(*connection.db, connection.budget, connection.stopping.get());
  auto diagnosis = history::diagnose_recorded(*connection.db, range.since_ms, range.until_ms);
  const bool expired = deadline->expired();
  deadline.reset();
  if (connection.stopping && connection.stopping->load()) return core::make_error("the server is stopping", exporter::kFindingsBusy);
  if (expired) {
    return core::make_error("diagnosing the range took longer than " + std::to_string(connection.budget.count() / 1000) +
                                " s: ask for a shorter range",
                            exporter::kFindingsBusy);
  }
  if (!diagnosis) return diagnosis.error();
  exporter::RecordedFindings out;
  out.findings = std::move(diagnosis->findings);
  out.samples = diagnosis->snapshots;
  out.first_ms = diagnosis->first_ms;
  out.last_ms = diagnosis->last_ms;
  return out;
}

}  // namespace

exporter::RecordedFindingsReader make_store_findings_reader(std::string db_path, std::chrono::milliseconds time_budget,
                                                            std::shared_ptr<const std::atomic<bool>> stopping) {
  auto connection = std::make_shared<FindingsConnection>();
  connection->path = std::move(db_path);
  connection->budget = time_budget;
  connection->stopping = std::move(stopping);
  return [connection](const exporter::FindingsRange& range) { return diagnose_range(*connection, range); };
}

}  // namespace gpuwatch::recorder
