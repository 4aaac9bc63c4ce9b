#pragma once
// --timeout DURATION of the commands that read every GPU once per sample (status, query, dmon,
// pmon): a GPU whose NVML call has not answered by then is shown timed out, and the others are
// shown anyway (sampler/deadline_sampler.hpp; issue 16).
#include <chrono>

namespace CLI {
class App;
}  // namespace CLI

namespace gpuwatch::cli {

void add_timeout_option(CLI::App& app, std::chrono::milliseconds& target);

}  // namespace gpuwatch::cli
