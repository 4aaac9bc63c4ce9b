// `gpuwatch pmon`: nvidia-smi pmon's scrolling per-process monitor, same columns,
// options and formatting. I/O shell around pmon_format.cpp and pmon_sample.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/core.h>

#include "attribution/snapshot_processes.hpp"
#include "cli/attribution_options.hpp"
#include "cli/command.hpp"
#include "cli/duration_option.hpp"
#include "cli/exit_codes.hpp"
#include "pmon/sample.hpp"
#include "host/process_info.hpp"
#include "cli/open_backends.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"
#include "sampler/deadline_sampler.hpp"
#include "cli/timeout_option.hpp"

namespace gpuwatch::cli {
namespace {

struct PmonArgs {
  std::string select = "u";
  std::string ids;
  long count = 0;  // 0: until interrupted
  std::chrono::milliseconds delay{1000};
  bool owner = false;
  AttributionArgs attribution;
  std::chrono::milliseconds timeout = sampler::kDefaultDeadline;  // --timeout (issue 16)
};

int run_pmon(const PmonArgs& args, const GlobalOptions& global) {
  pmon::PmonOptions options;
  if (auto ok = pmon::parse_pmon_select(args.select, options); !ok) {
    fmt::print(stderr, "gpuwatch pmon: {}\n", ok.error().message);
    return kExitUsage;
  }
  sampler::SampleOptions sample_options;
  sample_options.fields = {core::FieldId::Name};
  sample_options.processes = true;
  sample_options.process_utilization = options.utilization;
  options.owner = args.owner && !args.attribution.off;
  std::optional<attribution::Attributor> attributor;
  if (options.owner) {
    attributor.emplace(attributor_options(args.attribution, std::chrono::milliseconds(2000)));
    sample_options.fields.push_back(core::FieldId::Uuid);  // pods are matched by the GPU's UUID
  }

  auto backends = open_backends_for_command(global);
  if (!backends) return kExitNvmlUnavailable;
  auto ids = sampler::resolve_gpu_ids(args.ids, *backends);
  if (!ids) {
    fmt::print(stderr, "gpuwatch pmon: {}{}\n", ids.error().message, gpu_id_hint(args.ids, "-d/--interval"));
    return kExitNoDevices;
  }
  sample_options.devices = std::move(*ids);
  sampler::DeadlineSampler sampler(*backends, args.timeout);
  sampler::Ticker ticker{args.delay};
  auto lookup = [](unsigned pid) { return host::read_process_info(pid).name; };
  bool partial = false;
  for (long n = 0; args.count == 0 || n < args.count; ++n) {
    if (n > 0) ticker.wait();
    core::Snapshot snapshot = sampler.sample(sample_options);
    if (n == 0) {
      bool missing = false;
      for (unsigned index : sample_options.devices) missing = missing || index >= snapshot.device_count;
      if (snapshot.device_count == 0 || missing) {
        fmt::print(stderr, "gpuwatch pmon: {}\n",
                   snapshot.device_count == 0 ? std::string("NVML works but reports no GPU")
                                              : "no GPU with that index (-i)" + gpu_id_hint(args.ids, "-d/--interval"));
        return kExitNoDevices;
      }
      std::fputs(pmon::pmon_header(options).c_str(), stdout);
    }
    std::map<unsigned, attribution::Attribution> owners;
    if (attributor) {  // the first sample asks every API once; then the thread's answers
      owners = n > 0 ? attributor->attribute(attribution::gpu_processes(snapshot))
                     : attribution::attribute_once(*attributor, snapshot);
      if (n == 0) attributor->start();
    }
    std::string out;
    for (auto& row : pmon::pmon_rows(snapshot, lookup)) {
      if (auto found = row.pid ? owners.find(*row.pid) : owners.end(); found != owners.end() && !found->second.empty()) {
        row.owner = found->second.summary();
      }
      out += pmon::pmon_row(options, row);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    for (const auto& device : snapshot.devices) partial = partial || device.state != core::DeviceState::Ok;
  }
  return partial ? kExitPartial : kExitOk;
}

}  // namespace

Command add_pmon_command(CLI::App& app) {
  auto args = std::make_shared<PmonArgs>();
  Command command;
  command.app = app.add_subcommand("pmon", "Scrolling per-process monitor, like `nvidia-smi pmon`");
  command.app->add_option("-s,--select", args->select,
                          "Metric groups [default: u]: u utilization (sm mem enc dec jpg ofa), m memory (fb ccpm)");
  command.app->add_option("-c,--count", args->count, "Stop after COUNT samples")->check(CLI::PositiveNumber);
  add_duration_option(*command.app, "-d,--delay,--interval", args->delay,
                      "Time between samples: 1 (seconds), 1500ms, 1m [default: 1s]",
                      {.min = std::chrono::seconds(1), .max = std::chrono::seconds(10), .hint = "as nvidia-smi pmon -d"});
  command.app->add_option("-i,--id", args->ids,
                          "Only these GPUs: indices, UUIDs or PCI bus ids, comma separated (e.g. 0,2); -i is the GPU, "
                          "as in nvidia-smi (the interval is -d/--interval)");
  command.app->add_flag("--owner", args->owner,
                        "Add a last column: the container, Kubernetes pod or Slurm job of each process");
  add_attribution_options(*command.app, args->attribution);
  add_timeout_option(*command.app, args->timeout);
  command.app->footer("Examples:\n"
                      "  gpuwatch pmon                      each GPU process's utilization every second\n"
                      "  gpuwatch pmon -s um -d 2s -c 5     utilization and memory, every 2 seconds, 5 times\n"
                      "  gpuwatch pmon -i 0                 only GPU 0's processes (-i is the GPU here)");
  command.run = [args](const GlobalOptions& global) { return run_pmon(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
