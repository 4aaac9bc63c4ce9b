#include "nvml/driver_probe.hpp"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "backend/abandoned_calls.hpp"
#include "nvml/nvml_library.hpp"

namespace gpuwatch::nvml {

using doctor::GpuFacts;
using doctor::NvmlFacts;

namespace {

using Clock = std::chrono::steady_clock;

// Shared by the caller and the threads; outlives the caller when a thread is stuck in NVML.
struct ProbeState {
  std::mutex mutex;
  std::condition_variable changed;
  std::unique_ptr<nvml::NvmlLibrary> library;  // kept loaded while any thread may use it
  NvmlFacts facts;
  bool load_done = false;
  std::vector<bool> gpu_done;
  bool abandoned = false;           // the caller stopped waiting
  int threads_inside = 0;           // threads that were inside NVML when the caller left
};

void read_gpu(const nvml::NvmlApi& api, unsigned index, GpuFacts& g) {
  g.index = index;
  nvmlDevice_t dev{};
  nvmlReturn_t rc = api.handle_by_index(index, &dev);
  if (rc != NVML_SUCCESS) {
    g.lost = api.error_string(rc);
    return;
  }
  const auto& f = api.raw();
  char text[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  rc = GW_NVML_CALL(f, nvmlDeviceGetName, dev, text, sizeof text);
  if (rc == NVML_ERROR_GPU_IS_LOST) {
    g.lost = api.error_string(rc);
    return;
  }
  if (rc == NVML_SUCCESS) g.name = text;
  if (GW_NVML_CALL(f, nvmlDeviceGetUUID, dev, text, sizeof text) == NVML_SUCCESS) g.uuid = text;
  nvmlPciInfo_t pci{};
  if (api.pci_info(dev, &pci) == NVML_SUCCESS) g.bus_id = pci.busId;
  int mode = 0, pending_mode = 0;
  if (GW_NVML_CALL(f, nvmlDeviceGetPersistenceMode, dev, &mode) == NVML_SUCCESS) g.persistence = mode != 0;
  unsigned current = 0, pending = 0;
  if (GW_NVML_CALL(f, nvmlDeviceGetMigMode, dev, &current, &pending) == NVML_SUCCESS) {
    g.mig_current = current != 0;
    g.mig_pending = pending != 0;
  }
  if (GW_NVML_CALL(f, nvmlDeviceGetEccMode, dev, &mode, &pending_mode) == NVML_SUCCESS) {
    g.ecc_current = mode != 0;
    g.ecc_pending = pending_mode != 0;
  }
  if (GW_NVML_CALL(f, nvmlDeviceGetRetiredPagesPendingStatus, dev, &mode) == NVML_SUCCESS) g.retired_pages_pending = mode != 0;
  unsigned corrected = 0, uncorrected = 0, is_pending = 0, failure = 0;
  if (GW_NVML_CALL(f, nvmlDeviceGetRemappedRows, dev, &corrected, &uncorrected, &is_pending, &failure) == NVML_SUCCESS) {
    g.remap_pending = is_pending != 0;
    g.remap_failure = failure != 0;
  }
  unsigned value = 0;
  if (GW_NVML_CALL(f, nvmlDeviceGetCurrPcieLinkGeneration, dev, &value) == NVML_SUCCESS) g.pcie_gen = value;
  if (GW_NVML_CALL(f, nvmlDeviceGetMaxPcieLinkGeneration, dev, &value) == NVML_SUCCESS) g.pcie_gen_max = value;
  if (GW_NVML_CALL(f, nvmlDeviceGetCurrPcieLinkWidth, dev, &value) == NVML_SUCCESS) g.pcie_width = value;
  if (GW_NVML_CALL(f, nvmlDeviceGetMaxPcieLinkWidth, dev, &value) == NVML_SUCCESS) g.pcie_width_max = value;
  if (GW_NVML_CALL(f, nvmlDeviceGetPowerManagementLimit, dev, &value) == NVML_SUCCESS) g.power_limit_w = value / 1000.0;
  if (GW_NVML_CALL(f, nvmlDeviceGetPowerManagementDefaultLimit, dev, &value) == NVML_SUCCESS) g.power_default_w = value / 1000.0;
  if (GW_NVML_CALL(f, nvmlDeviceGetApplicationsClock, dev, NVML_CLOCK_GRAPHICS, &value) == NVML_SUCCESS) g.app_clock_mhz = value;
  if (GW_NVML_CALL(f, nvmlDeviceGetDefaultApplicationsClock, dev, NVML_CLOCK_GRAPHICS, &value) == NVML_SUCCESS) g.default_app_clock_mhz = value;
  if (GW_NVML_CALL(f, nvmlDeviceGetComputeMode, dev, &mode) == NVML_SUCCESS) g.compute_mode = mode;
  nvml::FabricInfo fabric;
  if (api.gpu_fabric_info(dev, &fabric) == NVML_SUCCESS) {
    g.fabric_state = fabric.state;
    g.fabric_status = static_cast<int>(fabric.status);
  }
  if (GW_NVML_CALL(f, nvmlDeviceGetTemperature, dev, NVML_TEMPERATURE_GPU, &value) == NVML_SUCCESS) g.temperature_c = value;
  nvmlUtilization_t utilization{};
  if (GW_NVML_CALL(f, nvmlDeviceGetUtilizationRates, dev, &utilization) == NVML_SUCCESS)
    g.utilization_ratio = utilization.gpu / 100.0;
}

// A thread leaving NVML: if the caller has gone, it no longer counts as abandoned.
void leave(ProbeState& state) {
  if (state.abandoned) {
    --state.threads_inside;
    backend::note_abandoned_call_returned();
  }
}

void probe_gpu(std::shared_ptr<ProbeState> state, unsigned index) {
  GpuFacts g;
  read_gpu(state->library->api(), index, g);
  std::lock_guard lock(state->mutex);
  if (!state->abandoned) state->facts.gpus[index] = std::move(g);
  state->gpu_done[index] = true;
  leave(*state);
  state->changed.notify_all();
}

void load(std::shared_ptr<ProbeState> state, std::string library_path) {
  const auto start = Clock::now();
  auto library = nvml::NvmlLibrary::open(library_path);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  NvmlFacts facts;
  facts.library = library_path.empty() ? std::string(nvml::kDefaultLibraryName) : library_path;
  facts.init_time = took;
  if (!library) {
    const std::string& message = library.error().message;
    facts.error = message.substr(0, message.find('\n'));
    facts.error_code = nvml_error_in_message(message);
    facts.library_found = library.error().code != nvml::kLoadLibraryNotFound;
  } else {
    facts.loaded = true;
    const auto& api = (*library)->api();
    char version[96] = {};
    if (GW_NVML_CALL(api.raw(), nvmlSystemGetDriverVersion, version, sizeof version) == NVML_SUCCESS)
      facts.driver_version = std::string(version);
    unsigned count = 0;
    if (api.device_count(&count) == NVML_SUCCESS) facts.device_count = std::min(count, 1024u);
  }
  std::lock_guard lock(state->mutex);
  if (library) state->library = std::move(*library);
  state->facts = std::move(facts);
  state->load_done = true;
  leave(*state);
  state->changed.notify_all();
}

}  // namespace

int nvml_error_in_message(const std::string& message) {
  constexpr std::string_view kMark = "(NVML error ";
  auto at = message.find(kMark);
  if (at == std::string::npos) return 0;
  int code = 0;
  for (std::size_t i = at + kMark.size(); i < message.size() && std::isdigit(static_cast<unsigned char>(message[i])); ++i)
    code = code * 10 + (message[i] - '0');
  return code;
}

NvmlFacts probe_nvml(const ProbeOptions& options) {
  auto state = std::make_shared<ProbeState>();
  const auto deadline = Clock::now() + options.deadline;
  std::thread(load, state, options.library).detach();
  std::unique_lock lock(state->mutex);
  if (!state->changed.wait_until(lock, deadline, [&] { return state->load_done; })) {
    state->abandoned = true;
    state->threads_inside = 1;
    backend::note_abandoned_call();
    NvmlFacts facts;
    facts.answered = false;
    facts.library = options.library.empty() ? std::string(nvml::kDefaultLibraryName) : options.library;
    facts.init_time = options.deadline;
    facts.error = "NVML did not finish loading and initialising in time";
    return facts;
  }
  const unsigned count = state->facts.loaded ? state->facts.device_count.value_or(0) : 0;
  state->facts.gpus.resize(count);
  state->gpu_done.assign(count, false);
  for (unsigned i = 0; i < count; ++i) {
    state->facts.gpus[i].index = i;
    std::thread(probe_gpu, state, i).detach();
  }
  state->changed.wait_until(lock, deadline, [&] {
    return std::all_of(state->gpu_done.begin(), state->gpu_done.end(), [](bool done) { return done; });
  });
  NvmlFacts facts = state->facts;
  bool all_done = true;
  for (unsigned i = 0; i < count; ++i) {
    if (state->gpu_done[i]) continue;
    all_done = false;
    facts.gpus[i].answered = false;
    ++state->threads_inside;
    backend::note_abandoned_call();
  }
  state->abandoned = true;
  // Every thread is out of NVML: unload it here, not on a detached thread racing the exit.
  std::unique_ptr<nvml::NvmlLibrary> library;
  if (all_done) library = std::move(state->library);
  lock.unlock();
  library.reset();
  return facts;
}

}  // namespace gpuwatch::nvml
