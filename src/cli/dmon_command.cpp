// `gpuwatch dmon`: nvidia-smi dmon's scrolling per-device monitor, same columns,
// options and formatting. I/O shell around dmon_format.cpp and dmon_sample.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <fmt/core.h>

#include "cli/command.hpp"
#include "dmon/sample.hpp"
#include "cli/exit_codes.hpp"
#include "cli/open_nvml.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::cli {
namespace {

struct DmonArgs {
  std::string select = "puc";
  std::string output;
  std::string ids;
  long count = 0;  // 0: until interrupted
  int delay_s = 1;
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

  auto library = open_nvml_for_command(global);
  if (!library) return kExitNvmlUnavailable;
  auto ids = sampler::resolve_gpu_ids(args.ids, library->api());
  if (!ids) {
    fmt::print(stderr, "gpuwatch dmon: {}\n", ids.error().message);
    return kExitNoDevices;
  }
  sample_options.devices = std::move(*ids);
  sampler::Sampler sampler(library->api());
  sampler::Ticker ticker{std::chrono::seconds(args.delay_s)};
  bool partial = false;
  std::optional<core::Snapshot> previous;
  for (long n = 0; args.count == 0 || n < args.count; ++n) {
    if (n > 0) ticker.wait();
    core::Snapshot snapshot = sampler.sample(sample_options);
    if (n == 0) {
      if (snapshot.device_count == 0 || !all_present(snapshot, sample_options.devices)) {
        fmt::print(stderr, "gpuwatch dmon: {}\n",
                   snapshot.device_count == 0 ? "NVML works but reports no GPU" : "no GPU with that index (-i)");
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
  command.app->add_option("-d,--delay", args->delay_s, "Seconds between samples [default: 1]")
      ->check(CLI::Range(1, 86400));
  command.app->add_option("-i,--id", args->ids, "Only these GPUs: indices, UUIDs or PCI bus ids, comma separated (e.g. 0,2)");
  command.app->add_option("-o,--options", args->output, "D: add a date column (YYYYMMDD), T: a time column");
  command.run = [args](const GlobalOptions& global) { return run_dmon(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
