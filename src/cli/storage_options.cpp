#include "cli/storage_options.hpp"

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

void add_storage_options(CLI::App& command, recorder::StorageArgs& args, const std::string& db_help) {
  command.add_option("--db", args.db, db_help);
  command.add_option("--flush-interval", args.flush_interval,
                     "Write the buffered samples in one transaction this often; a crash loses at most this much "
                     "[default: 5s]");
  command.add_option("--retain-raw", args.retain_raw,
                     "Keep raw samples this long, then roll them up to 1-minute min/avg/max [default: 7d]");
  command.add_option("--retain-1m", args.retain_1m,
                     "Keep 1-minute rollups this long, then roll them up to 1-hour [default: 90d]");
  command.add_option("--retain-1h", args.retain_1h, "Keep 1-hour rollups this long [default: forever]");
  command.add_option("--max-size", args.max_size,
                     "Bound the database's size (e.g. 500M, 2G): the oldest raw samples go first, then rollups");
  command.add_flag("--no-record-commands", args.no_record_commands,
                   "Do not keep the command line of GPU processes in the history (it may carry secrets); "
                   "history and report then show NVML's process name only");
}

}  // namespace gpuwatch::cli
