// `gpuwatch pmon`: nvidia-smi pmon's scrolling per-process monitor, same columns,
// options and formatting. I/O shell around pmon_format.cpp and pmon_sample.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/core.h>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "pmon/sample.hpp"
#include "host/process_info.hpp"
#include "cli/open_nvml.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::cli {
namespace {

struct PmonArgs {
  std::string select = "u";
  std::string ids;
  long count = 0;  // 0: until interrupted
  int delay_s = 1;
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

  auto library = open_nvml_for_command(global);
  if (!library) return kExitNvmlUnavailable;
  auto ids = sampler::resolve_gpu_ids(args.ids, library->api());
  if (!ids) {
    fmt::print(stderr, "gpuwatch pmon: {}\n", ids.error().message);
    return kExitNoDevices;
  }
  sample_options.devices = std::move(*ids);
  sampler::Sampler sampler(library->api());
  sampler::Ticker ticker{std::chrono::seconds(args.delay_s)};
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
                   snapshot.device_count == 0 ? "NVML works but reports no GPU" : "no GPU with that index (-i)");
        return kExitNoDevices;
      }
      std::fputs(pmon::pmon_header(options).c_str(), stdout);
    }
    std::string out;
    for (const auto& row : pmon::pmon_rows(snapshot, lookup)) out += pmon::pmon_row(options, row);
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
  command.app->add_option("-d,--delay", args->delay_s, "Seconds between samples [default: 1]")
      ->check(CLI::Range(1, 10));
  command.app->add_option("-i,--id", args->ids, "Only these GPUs: indices, UUIDs or PCI bus ids, comma separated (e.g. 0,2)");
  command.run = [args](const GlobalOptions& global) { return run_pmon(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
