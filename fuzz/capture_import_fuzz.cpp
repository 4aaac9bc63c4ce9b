// libFuzzer target: `gpuwatch sim import` (sim/engine/capture_import.cpp) over nvidia-smi
// captures: --query-gpu CSV, --query-compute-apps CSV and `nvidia-smi -q` text.
// The input holds up to four capture files separated by a form feed ('\f'), as
// `sim import q.csv apps.csv q.txt` would read them; the scenario an import writes is then
// parsed as a scenario too (its errors are fine, a crash is not).
#include <string>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "sim/engine/capture_import.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace {

constexpr std::size_t kMaxFiles = 4;

std::vector<gpuwatch::sim::CaptureFile> split_files(std::string_view input) {
  std::vector<gpuwatch::sim::CaptureFile> files;
  while (files.size() + 1 < kMaxFiles) {
    const auto feed = input.find('\f');
    if (feed == std::string_view::npos) break;
    files.push_back({"capture" + std::to_string(files.size()) + ".txt", std::string(input.substr(0, feed))});
    input.remove_prefix(feed + 1);
  }
  files.push_back({"capture" + std::to_string(files.size()) + ".txt", std::string(input)});
  return files;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::unsetenv("GPUWATCH_REALDATA_DIR");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuwatch;
  const auto files = split_files(fuzz::as_text(data, size));
  for (const auto& file : files) (void)sim::detect_capture_kind(file.content);
  auto yaml = sim::import_capture_files(files);
  if (!yaml) {
    GPUWATCH_FUZZ_CHECK(!yaml.error().message.empty(), "an error says what is wrong");
    GPUWATCH_FUZZ_CHECK(yaml.error().message.size() <= 2048, "an error message stays short");
    return 0;
  }
  auto scenario = sim::parse_scenario(*yaml, "imported.yaml", "/nonexistent/gpuwatch-fuzz");
  (void)scenario;
  return 0;
}
