// `gpuwatch run [OPTIONS] -- CMD ARGS...`: runs CMD, samples the GPUs on gpuwatch's own threads
// (a live session, as serve samples) while it runs, and when it ends prints the job's
// summary on stderr, keeps it in the history database (jobs table, and the samples as `record`
// writes them) and exits with CMD's status. The job's logic is src/jobs/; this file wires it.
#include <CLI/CLI.hpp>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/core.h>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/json_text.hpp"
#include "core/sink_text.hpp"
#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/energy_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/storage_options.hpp"
#include "core/time_spec.hpp"
#include "diagnose/input_fields.hpp"
#include "live/live_session.hpp"
#include "history/lost_monitors.hpp"
#include "host/host_name.hpp"
#include "host/process_start.hpp"
#include "jobs/energy_rates.hpp"
#include "jobs/energy_report.hpp"
#include "jobs/job_child.hpp"
#include "jobs/job_summary.hpp"
#include "jobs/job_tracker.hpp"
#include "jobs/steps_file.hpp"
#include "notify/channel_config.hpp"
#include "notify/job_message.hpp"
#include "notify/sender.hpp"
#include "store/database_path.hpp"
#include "recorder/recorder_thread.hpp"
#include "recorder/storage.hpp"
#include "store/jobs.hpp"
#include "cli/open_backends.hpp"
#include "vendors/vendor_table.hpp"

namespace gpuwatch::cli {
namespace {

struct RunArgs {
  std::string interval = "1s", name, summary_json, notify_config;
  std::vector<std::string> notify;
  EnergyArgs energy;  // cost and carbon (docs/energy.md)
  bool no_record = false;
  bool no_host = false;  // issue 25: no host signals beside the GPUs
  recorder::StorageArgs storage;
  std::vector<std::string> command;
};

void warn(const std::string& message) { fmt::print(stderr, "gpuwatch run: {}\n", message); }

std::string user_name() {
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return std::to_string(::getuid());
}

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// Where the job goes in the history: two connections (the recorder thread writes samples on its
// own; the jobs table is written from here). None with --no-record, or when the default database
// cannot be opened (a warning: the job runs anyway).
struct JobStore {
  std::unique_ptr<store::HistoryDatabase> jobs;
  std::shared_ptr<recorder::LiveRecorder> samples;
};

core::Result<JobStore> open_job_store(const RunArgs& args, std::chrono::milliseconds interval) {
  JobStore out;
  auto plan = recorder::parse_storage_args(args.storage);
  if (!plan) return core::make_error(plan.error().message, kExitUsage);
  if (args.no_record) {
    if (!args.storage.db.empty()) return core::make_error("--db and --no-record contradict each other", kExitUsage);
    return out;
  }
  const bool explicit_db = !args.storage.db.empty();
  const std::string path = explicit_db ? args.storage.db : store::default_database_path();
  auto open = [&]() -> core::Result<std::unique_ptr<store::HistoryDatabase>> {
    if (path.empty()) return core::make_error(store::no_default_database_message());
    if (auto ready = store::prepare_database_directory(path); !ready) return ready.error();
    return store::HistoryDatabase::open(path);
  };
  auto jobs = open();
  std::optional<core::Result<std::unique_ptr<store::HistoryDatabase>>> samples;
  if (jobs) samples.emplace(open());
  if (!jobs || !*samples) {
    const std::string message = !jobs ? jobs.error().message : samples->error().message;
    if (explicit_db) return core::make_error(message, kExitRuntimeError);
    warn("not recording the job: " + message + " (give --db PATH, or --no-record)");
    return out;
  }
  if (!explicit_db) {
    if (auto note = store::simulated_default_note(); !note.empty()) warn(note);
  }
  // A job whose `gpuwatch run` died runs on unrecorded: said once (issue 31).
  for (const auto& line : history::notice_lost_monitors(**jobs)) warn(line);
  out.jobs = std::move(*jobs);
  out.samples = std::make_shared<recorder::LiveRecorder>(std::move(**samples), *plan, interval);
  return out;
}

// The private folder of the steps file (mkdtemp); removed with everything in it at the end.
struct StepsDir {
  std::string dir;
  ~StepsDir() {
    if (dir.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string file() const { return dir.empty() ? "" : dir + "/steps.jsonl"; }
};

StepsDir make_steps_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/gpuwatch-run-XXXXXX";
  StepsDir out;
  if (::mkdtemp(pattern.data()) != nullptr) out.dir = pattern;
  else warn("cannot make a folder for the steps file: the job's steps are not read");
  return out;
}

// Reads the steps file, keeps its rows in the job's history and the measured data-wait share.
jobs::StepsSummary collect_steps(const StepsDir& dir, store::HistoryDatabase* db, std::optional<std::int64_t> job_id,
                                 std::vector<jobs::StepRow>& rows_out) {
  jobs::StepsSummary out;
  if (dir.dir.empty()) return out;
  auto steps = jobs::read_steps_file(dir.file());
  if (!steps) {
    warn(steps.error().message);
    return out;
  }
  out.count = steps->rows.size();
  out.malformed = steps->malformed;
  out.data_wait_ratio = jobs::data_wait_share(steps->rows);
  rows_out = steps->rows;
  if (db != nullptr && job_id && !steps->rows.empty()) {
    std::vector<store::JobStepRow> rows;
    for (const auto& r : steps->rows)
      rows.push_back({r.step, r.time_s, r.data_wait_s, r.compute_s, r.loss, r.allocated_bytes, r.reserved_bytes,
                      r.num_alloc_retries, r.num_ooms});
    if (auto stored = store::insert_job_steps(*db, *job_id, rows); !stored) warn(stored.error().message);
  }
  return out;
}

// Samples every GPU while the job runs (a live session: live/live_session.hpp): the job's tracker
// and the recorder see every sample, the live diagnosis's findings are collected.
struct Sampling {
  std::unique_ptr<live::LiveSession> session;
  std::mutex findings_mutex;
  std::vector<diagnose::Finding> findings;
};

void start_sampling(Sampling& sampling, const backend::Backends& backends, std::chrono::milliseconds interval,
                    jobs::JobTracker& tracker, const std::shared_ptr<recorder::LiveRecorder>& recorder,
                    const live::HostSignalsOptions& host) {
  live::LiveSessionOptions options;
  options.sampling.interval = interval;
  // issue 25: the host beside the GPUs (the diagnosis's host causes; host rows in the history).
  options.sampling.host = host;
  if (recorder && host.enabled) {
    options.sampling.on_host_sample = [recorder](const std::shared_ptr<const host_signals::HostSample>& sample) {
      recorder->push_host(sample);
    };
  }
  options.sampling.xid_events = true;
  options.diagnosis = live::DiagnosisMode::Background;
  // Continuity (issue 23): the diagnosis goes on from this node's recorded history.
  if (recorder) options.prime_from = recorder->path();
  // Only what the summary, the diagnosis and (when recording) the history need: not every field
  // serve exports (fewer NVML calls per sample: issue 14's "under 0.5 % of a core").
  options.sampling.fields = jobs::summary_fields();
  std::vector<core::FieldId> extra;
  if (recorder) extra = recorder::recorded_fields();
  options.sampling.extra_fields = diagnose::with_input_fields(std::move(extra));
  options.recorder = recorder;
  options.sampling.on_sample = [&tracker](const core::DeviceSnapshot& device, std::chrono::system_clock::time_point at) {
    tracker.observe(device, at);
  };
  options.on_findings = [&sampling](const std::vector<diagnose::Finding>& active) {
    std::lock_guard lock(sampling.findings_mutex);
    jobs::merge_findings(sampling.findings, active);
  };
  auto session = live::LiveSession::open(backends, std::move(options));
  if (!session) {  // no alerts here: it cannot fail
    warn(session.error().message);
    return;
  }
  sampling.session = std::move(*session);
  sampling.session->start();  // the recorder's thread, then the sampling threads
}

// Stops the sampling threads and the recorder (its last batch written); the Xids they counted on
// every GPU.
std::vector<jobs::XidSeen> stop_sampling(Sampling& sampling) {
  std::vector<jobs::XidSeen> xids;
  if (!sampling.session) return xids;
  sampling.session->with_view([&](const live::LiveView& view) {
    for (const auto& x : view.xid_events) xids.push_back({x.gpu, x.xid, x.count});
  });
  if (!sampling.session->stop(std::chrono::seconds(2))) warn("an NVML call is still hanging; the summary has what came before it");
  return xids;
}

void write_summary_json(const std::string& path, const nlohmann::json& summary) {
  std::ofstream out(path);
  out << core::json_text(summary, 2) << "\n";  // a GPU name may not be UTF-8 (issue 31)
  if (!out) warn("--summary-json: cannot write " + path);
}

void notify_end(const std::vector<notify::Channel>& channels, const jobs::JobSummary& summary) {
  const std::string text = jobs::end_message(summary.info);
  auto group = notify::job_group(summary.info.name, text, summary.info.exit_status != 0, summary.info.host,
                                 std::chrono::system_clock::now());
  for (const auto& channel : channels) {
    auto result = notify::send_group(channel, group, std::chrono::system_clock::now(),
                                     fmt::format("job-{}", summary.info.id.value_or(0)), nullptr);
    if (!result.accepted) warn(fmt::format("--notify {}: not accepted: {}", channel.name, notify::summarize(result)));
  }
}

int run_job(const RunArgs& args, const GlobalOptions& global) {
  auto interval = core::parse_duration(args.interval);
  if (!interval) return command_error("run", "--interval: " + interval.error().message, kExitUsage);
  if (args.command.empty()) return command_error("run", "give the command after --: gpuwatch run -- python train.py", kExitUsage);
  std::vector<notify::Channel> channels;
  if (!args.notify.empty() || !args.notify_config.empty()) {
    auto parsed = notify::parse_channels(args.notify, args.notify_config);
    if (!parsed) return command_error("run", parsed.error().message, kExitUsage);
    channels = std::move(*parsed);
  }
  auto rates = energy_rates(args.energy);
  if (!rates) return command_error("run", rates.error().message, kExitUsage);
  auto job_store = open_job_store(args, *interval);
  if (!job_store) return command_error("run", job_store.error().message, job_store.error().code);

  jobs::JobInfo info;
  info.name = !args.name.empty() ? args.name : std::filesystem::path(args.command.front()).filename().string();
  info.command = args.command;
  info.user = user_name();
  info.host = host::host_name();
  info.start = std::chrono::system_clock::now();
  if (job_store->jobs) {
    store::JobRow row;
    row.name = info.name;
    row.command = core::json_text(nlohmann::json(info.command));
    row.user = info.user;
    row.host = info.host;
    row.start_ms = unix_ms(info.start);
    // Who watches the job: a later reader tells from these that this process died (issue 31).
    row.monitor_pid = ::getpid();
    if (auto ticks = host::process_start_ticks(::getpid())) row.monitor_start_ticks = static_cast<std::int64_t>(*ticks);
    if (auto id = store::insert_job(*job_store->jobs, row)) info.id = *id;
    else warn(id.error().message);
  }
  StepsDir steps_dir = make_steps_dir();
  std::vector<std::pair<std::string, std::string>> env;
  if (!steps_dir.dir.empty()) env.emplace_back("GPUWATCH_STEPS_FILE", steps_dir.file());
  if (info.id) env.emplace_back("GPUWATCH_JOB_ID", std::to_string(*info.id));
  // `gpuwatch --simulate SCENARIO run -- CMD`: CMD's NVML is the simulated driver too (as under
  // `sim run SCENARIO -- gpuwatch run -- CMD`), not only gpuwatch's own.
  for (auto& assignment : simulated_child_environment()) env.push_back(std::move(assignment));

  // The backends are opened first (a simulated driver's stand-ins are started before the job);
  // without one the job runs all the same, with no GPU data.
  const backend::OpenOptions opened_with = open_options(global);  // the host signals read the same root
  std::unique_ptr<backend::Backends> backends = vendors::open_backends(opened_with);
  if (backends->empty()) {
    warn(backends->failure_text() + ": the job runs without GPU data");
    backends.reset();
  }

  // gpuwatch's children so far (a simulation's stand-in processes) are not the job's, though the
  // walk up from them reaches gpuwatch, the job's subreaper.
  const std::set<std::uint32_t> not_the_job = jobs::read_children(static_cast<std::uint32_t>(::getpid()));
  auto child = jobs::JobChild::start(args.command, env);
  if (!child) {
    warn(child.error().message);
    if (job_store->jobs && info.id)  // the job ended before it started: say so in the history
      static_cast<void>(store::finish_job(*job_store->jobs, *info.id, unix_ms(std::chrono::system_clock::now()),
                                          child.error().code, "[]", ""));
    return child.error().code;
  }
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  jobs::JobTracker tracker(
      jobs::ProcessTree({static_cast<std::uint32_t>((*child)->pid()), static_cast<std::uint32_t>(::getpid())},
                        [](std::uint32_t pid) { return jobs::read_parent_pid(pid); }, not_the_job),
      jobs::parse_visible_devices(visible ? std::optional<std::string_view>(visible) : std::nullopt));
  Sampling sampling;
  live::HostSignalsOptions host;
  host.enabled = !args.no_host;
  host.root = opened_with.host_root;
  host.simulated_tree = opened_with.simulated_tree;
  if (backends) start_sampling(sampling, *backends, *interval, tracker, job_store->samples, host);

  const jobs::ChildExit exit = (*child)->wait();
  info.end = std::chrono::system_clock::now();
  info.exit_status = exit.status;
  info.signal = exit.signal;
  std::vector<jobs::XidSeen> xids = stop_sampling(sampling);
  if (job_store->samples) job_store->samples->stop();  // the last batch is written

  std::vector<jobs::StepRow> step_rows;
  jobs::StepsSummary steps = collect_steps(steps_dir, job_store->jobs.get(), info.id, step_rows);
  std::vector<diagnose::Finding> findings;
  {
    std::lock_guard lock(sampling.findings_mutex);
    findings = sampling.findings;
  }
  jobs::JobSummary summary = jobs::summarize(info, tracker.stats(), xids, findings, steps);
  if (steps.data_wait_ratio) {
    std::vector<unsigned> gpus;
    std::vector<std::string> uuids;
    for (const auto& g : summary.gpus) {
      gpus.push_back(g.index);
      uuids.push_back(g.uuid);
    }
    if (auto starved = jobs::measured_starvation(*steps.data_wait_ratio, steps.count, gpus, uuids)) {
      // Active over the steps it was measured on (the energy while it was active: docs/energy.md).
      if (auto range = jobs::steps_time_range(step_rows)) std::tie(starved->start, starved->end) = *range;
      summary.findings.insert(summary.findings.begin(), std::move(*starved));
    }
  }
  {  // energy per GPU, per step, wasted, its cost and CO2 (docs/energy.md)
    std::vector<jobs::GpuTimeline> timelines;
    for (const auto& g : summary.gpus) timelines.push_back({g.index, &g.energy_timeline});
    summary.energy = jobs::energy_report(timelines, step_rows, summary.findings, *rates, jobs::local_hour,
                                         std::chrono::duration<double>(*interval).count());
  }
  std::fputs(core::terminal_lines(jobs::summary_text(summary)).c_str(), stderr);  // no raw escape (issue 31)
  const nlohmann::json summary_json = jobs::summary_json(summary);
  if (!args.summary_json.empty()) write_summary_json(args.summary_json, summary_json);
  if (job_store->jobs && info.id) {
    if (auto done = store::finish_job(*job_store->jobs, *info.id, unix_ms(info.end), info.exit_status,
                                      core::json_text(jobs::gpus_json(summary)), core::json_text(summary_json));
        !done)
      warn(done.error().message);
  }
  notify_end(channels, summary);
  return exit.status;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  Command command;
  command.app = app.add_subcommand("run", "Run a command as a job: sample the GPUs it uses while it runs, then print "
                                          "its summary (GPU-hours, energy, utilization, memory, throttling, Xids, "
                                          "findings) and exit with its status");
  auto* c = command.app;
  c->add_option("--interval", args->interval, "Time between samples: 500ms, 1s, 5s [default: 1s]");
  c->add_option("--name", args->name, "The job's name [default: the command's base name]");
  c->add_option("--summary-json", args->summary_json, "Also write the summary as JSON to FILE (docs/cli.md#run)");
  c->add_option("--notify", args->notify,
                "When the job ends, send \"job NAME finished / failed (exit N) after 3 h 12 m\" to this channel, "
                "repeatable: webhook=URL, slack=URL, discord=URL, teams=URL, ntfy=URL, desktop, exec=COMMAND, or a "
                "channel NAME from --notify-config (as serve and record)");
  c->add_option("--notify-config", args->notify_config, "YAML file of notification channels (docs/alerts.md#channels)");
  add_energy_options(*c, args->energy, "the job's");
  c->add_flag("--no-record", args->no_record, "Keep nothing in the history database (no job, no samples)");
  c->add_flag("--no-host", args->no_host,
              "Do not sample the host's CPU, memory, disks and network beside the GPUs (the summary then cannot "
              "tell a CPU- or I/O-bound loader)");
  add_storage_options(*c, args->storage,
                      "History database for the job and its samples [default: as `record`]; "
                      "`gpuwatch history --jobs` and `gpuwatch report --job ID` read it");
  // After `--` every word is the command's; without `--` a command word that looks like an
  // option would be taken as ours.
  c->add_option("command", args->command, "The command to run and its arguments, after --")->required();
  c->footer("The command gets GPUWATCH_JOB_ID (when recorded) and GPUWATCH_STEPS_FILE (the Python package's\n"
            "Monitor writes its steps there). Exit status: the command's (128+N when signal N killed it;\n"
            "127 not found, 126 not executable).\n"
            "Examples:\n"
            "  gpuwatch run -- python train.py --epochs 3          summary on stderr when it ends\n"
            "  gpuwatch run --name llama --summary-json s.json -- torchrun --nproc-per-node 8 train.py\n"
            "  gpuwatch run --notify slack=https://hooks.slack.com/services/... -- python train.py\n"
            "  gpuwatch --simulate demo run -- python train.py     on the simulated 8-GPU node");
  command.run = [args](const GlobalOptions& global) { return run_job(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
