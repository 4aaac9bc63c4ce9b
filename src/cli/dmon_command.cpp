// `gpuwatch dmon`: nvidia-smi dmon's scrolling per-device monitor, same columns,
// options and formatting. I/O shell around dmon_format.cpp and dmon_sample.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <thread>
#include <fmt/core.h>

#include "cli/command.hpp"
#include "cli/duration_option.hpp"
#include "dmon/sample.hpp"
#include "cli/exit_codes.hpp"
#include "cli/open_backends.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"
#include "sampler/deadline_sampler.hpp"
#include "cli/timeout_option.hpp"

namespace gpuwatch::cli {
namespace {

struct DmonArgs {
  std::string select = "puc";
  std::string output;
  std::string ids;
  long count = 0;  // 0: until interrupted
  std::chrono::milliseconds delay{1000};
  std::chrono::milliseconds timeout = sampler::kDefaultDeadline;  // --timeout (issue 16)
};

bool all_present(const core::Snapshot& snapshot, const std::vector<unsigned>& wanted) {
  for (unsigned index : wanted) {
    if (index >= snapshot.device_count) return false;
  }
  return true;
}

int run_dmon(const DmonArgs& args, const GlobalOptions& global) {
  dmon::DmonOptions options;
  auto columns = dmon::parse_dmon_select(args.select);
  if (!columns) {
    fmt::print(stderr, "gpuwatch dmon: {}\n", columns.error().message);
    return kExitUsage;
  }
  options.columns = std::move(*columns);
  if (auto ok = dmon::parse_dmon_output_options(args.output, options); !ok) {
    fmt::print(stderr, "gpuwatch dmon: {}\n", ok.error().message);
    return kExitUsage;
  }
  sampler::SampleOptions sample_options;
  sample_options.fields = dmon::dmon_fields(options.columns);

  auto backends = open_backends_for_command(global);
  if (!backends) return kExitNvmlUnavailable;
  auto ids = sampler::resolve_gpu_ids(args.ids, *backends);
  if (!ids) {
    fmt::print(stderr, "gpuwatch dmon: {}{}\n", ids.error().message, gpu_id_hint(args.ids, "-d/--interval"));
    return kExitNoDevices;
  }
  sample_options.devices = std::move(*ids);
  sampler::DeadlineSampler sampler(*backends, args.timeout);
  sampler::Ticker ticker{args.delay};
  bool partial = false;
  std::optional<core::Snapshot> previous;
  if (dmon::has_violation_columns(options.columns)) {  // pviol/tviol on the first row too (issue 9)
    previous = sampler.sample(sample_options);
    std::this_thread::sleep_for(dmon::kFirstViolationWindow);
  }
  for (long n = 0; args.count == 0 || n < args.count; ++n) {
    if (n > 0) ticker.wait();
    core::Snapshot snapshot = sampler.sample(sample_options);
    if (n == 0) {
      if (snapshot.device_count == 0 || !all_present(snapshot, sample_options.devices)) {
        fmt::print(stderr, "gpuwatch dmon: {}\n",
                   snapshot.device_count == 0 ? std::string("NVML works but reports no GPU")
                                              : "no GPU with that index (-i)" + gpu_id_hint(args.ids, "-d/--interval"));
        return kExitNoDevices;
      }
      std::fputs(dmon::dmon_header(options).c_str(), stdout);
    }
    std::tm when{};
    std::time_t t = std::chrono::system_clock::to_time_t(snapshot.timestamp);
    localtime_r(&t, &when);
    std::string out;
    for (const auto& row : dmon::dmon_rows(snapshot, options.columns, previous ? &*previous : nullptr)) {
      out += dmon::dmon_row(options, row, when);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    for (const auto& device : snapshot.devices) partial = partial || device.state != core::DeviceState::Ok;
    previous = std::move(snapshot);
  }
  return partial ? kExitPartial : kExitOk;
}

}  // namespace

Command add_dmon_command(CLI::App& app) {
  auto args = std::make_shared<DmonArgs>();
  Command command;
  command.app = app.add_subcommand("dmon", "Scrolling per-GPU monitor, like `nvidia-smi dmon`");
  command.app->add_option("-s,--select", args->select,
                          "Metric groups [default: puc]: p power/temperature, u utilization, c clocks, "
                          "v violations, m memory, e ECC/PCIe errors, t PCIe throughput");
  command.app->add_option("-c,--count", args->count, "Stop after COUNT samples")->check(CLI::PositiveNumber);
  add_duration_option(*command.app, "-d,--delay,--interval", args->delay,
                      "Time between samples: 1 (seconds), 1500ms, 1m [default: 1s]",
                      {.min = std::chrono::seconds(1), .max = std::chrono::hours(24), .hint = "as nvidia-smi dmon -d"});
  command.app->add_option("-i,--id", args->ids,
                          "Only these GPUs: indices, UUIDs or PCI bus ids, comma separated (e.g. 0,2); -i is the GPU, "
                          "as in nvidia-smi (the interval is -d/--interval)");
  command.app->add_option("-o,--options", args->output, "D: add a date column (YYYYMMDD), T: a time column");
  add_timeout_option(*command.app, args->timeout);
  command.app->footer("Examples:\n"
                      "  gpuwatch dmon                      power, temperature, utilization and clocks every second\n"
                      "  gpuwatch dmon -s pucvmet -d 5s -c 12   every group, every 5 seconds, 12 times\n"
                      "  gpuwatch dmon -i 0,1 -o T          GPUs 0 and 1, with a time column (-i is the GPU here)");
  command.run = [args](const GlobalOptions& global) { return run_dmon(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
