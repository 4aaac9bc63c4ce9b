// `gpuwatch doctor [--json]`: what is wrong with the GPU setup (issue 30). Wiring only: the
// checks are src/doctor/. Exit codes: 0 all OK, 1 warnings, 2 problems.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <future>
#include <memory>

#include "cli/command.hpp"
#include "doctor/doctor.hpp"
#include "doctor/host_facts.hpp"
#include "vendors/vendor_table.hpp"
#include "doctor/render.hpp"
#include "doctor/system_view.hpp"
#include "store/database_path.hpp"

namespace gpuwatch::cli {

namespace {

struct DoctorOptions {
  bool json = false;
};

int run_doctor(const DoctorOptions& options, const GlobalOptions& global) {
  // NVML is asked on its own threads (with a deadline) while the files are read here.
  const std::chrono::milliseconds deadline{1200};
  auto host = std::async(std::launch::async, [] {
    doctor::RootedSystemView view(doctor::host_root_from_environment());
    return std::make_pair(doctor::gather_host_facts(view),
                          doctor::gather_monitoring(view, store::default_database_path()));
  });
  doctor::DoctorInput input;
  input.deadline = deadline;
  input.nvml = vendors::probe_nvidia_driver(global.nvml_library, deadline);
  std::tie(input.host, input.monitoring) = host.get();
  const auto report = doctor::run_checks(input);
  fmt::print("{}", options.json ? doctor::render_json(report) : doctor::render_text(report));
  return report.exit_code;
}

}  // namespace

Command add_doctor_command(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  Command command;
  command.app = app.add_subcommand("doctor", "Check the GPU setup: driver, kernel module, devices, containers, GPU modes");
  command.app->add_flag("--json", options->json, "The same checks as JSON");
  command.app->footer("Each check says OK, warning or problem, with the evidence and the fix (docs/doctor.md).\n"
                      "Exit codes: 0 all OK, 1 warnings, 2 problems.\n"
                      "Examples:\n"
                      "  gpuwatch doctor\n"
                      "  gpuwatch doctor --json\n"
                      "  gpuwatch --simulate demo doctor          on the simulated 8-GPU node");
  command.run = [options](const GlobalOptions& global) { return run_doctor(*options, global); };
  return command;
}

}  // namespace gpuwatch::cli
