#include "sampler/deadline_sampler.hpp"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "core/field_table.hpp"
#include "backend/abandoned_calls.hpp"

namespace gpuwatch::sampler {

// One GPU's worker: a thread that lives as long as the DeadlineSampler and samples its GPU each
// time it is asked (issue 26: a thread per GPU per sample cost dmon 13x its CPU). At most one
// request is outstanding; a GPU whose thread is still inside an earlier call is not asked again.
struct Worker {
  std::unique_ptr<Sampler> sampler;
  std::thread thread;       // started on the first request
  bool requested = false;   // a request waits for the thread
  SampleOptions request;
  bool busy = false;        // the thread is sampling this GPU (or about to)
  bool abandoned = false;   // ... and a caller stopped waiting for it
  std::uint64_t round = 0;  // which request the result answers
  bool done = false;
  core::Snapshot result;
  std::optional<core::DeviceSnapshot> last_answer;  // identity for the samples it times out
};

struct DeadlineSampler::Shared {
  std::mutex mutex;
  std::condition_variable finished;  // a worker has a result
  std::condition_variable asked;     // a worker has a request, or the sampler is going away
  bool stopping = false;
  std::vector<std::unique_ptr<Worker>> workers;  // by NVML index; stable addresses
};

namespace {

void run_worker(std::shared_ptr<DeadlineSampler::Shared> shared, Worker* worker) {
  std::unique_lock lock(shared->mutex);
  for (;;) {
    shared->asked.wait(lock, [&] { return shared->stopping || worker->requested; });
    if (shared->stopping) return;
    worker->requested = false;
    SampleOptions options = std::move(worker->request);
    Sampler* sampler = worker->sampler.get();
    lock.unlock();
    core::Snapshot local;
    sampler->sample_into(options, local);  // may hang: nothing is locked meanwhile
    lock.lock();
    worker->result = std::move(local);
    worker->done = true;
    worker->busy = false;
    if (worker->abandoned) {
      worker->abandoned = false;
      backend::note_abandoned_call_returned();
    }
    shared->finished.notify_all();
  }
}

// The System fields (timestamp, driver version, GPU count) of a device that did not answer
// come from the snapshot, as the Sampler fills them for the others.
void fill_system_fields(const core::Snapshot& snapshot, core::DeviceSnapshot& device) {
  for (std::size_t f = 0; f < device.readings.size(); ++f) {
    const auto& info = core::field_table()[f];
    if (info.source != core::Source::System || device.readings[f].status == core::FieldStatus::NotRead) continue;
    switch (info.arg) {
      case 0: {
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(snapshot.timestamp.time_since_epoch()).count();
        device.readings[f] = core::FieldReading::of(static_cast<double>(us) / 1e6);
        break;
      }
      case 1:
        if (snapshot.driver_version) device.readings[f] = core::FieldReading::of(*snapshot.driver_version);
        break;
      case 3: device.readings[f] = core::FieldReading::of(std::string(core::to_string(device.vendor))); break;
      default: device.readings[f] = core::FieldReading::of(std::uint64_t{snapshot.device_count}); break;
    }
  }
}

// A GPU that timed out keeps the identity its last answer gave (a loop's later rows still say
// which GPU it is), as the exporter's collector does for a lost GPU.
void keep_identity(const core::DeviceSnapshot& last, core::DeviceSnapshot& device) {
  for (auto id : {core::FieldId::Name, core::FieldId::Uuid, core::FieldId::PciBusId, core::FieldId::Serial}) {
    if (device.get(id).status != core::FieldStatus::NotRead && last.get(id).ok()) device.get(id) = last.get(id);
  }
}

}  // namespace

core::DeviceSnapshot timed_out_device(unsigned index, const std::vector<core::FieldId>& fields,
                                      core::ReadError timeout) {
  core::DeviceSnapshot device;
  device.index = index;
  device.state = core::DeviceState::TimedOut;
  device.error = timeout;
  const std::vector<core::FieldId>& wanted = fields.empty() ? claimed_fields() : fields;
  for (auto f : wanted) device.get(f) = core::FieldReading::absent(core::FieldStatus::Failed, timeout);
  // Its index is the one it was asked by (what the driver's own index answers).
  if (device.get(core::FieldId::Index).status != core::FieldStatus::NotRead) {
    device.get(core::FieldId::Index) = core::FieldReading::of(std::uint64_t{index});
  }
  device.processes_status = core::FieldStatus::Failed;
  device.processes_error = timeout;
  return device;
}

DeadlineSampler::DeadlineSampler(const backend::DeviceBackend& backend, std::chrono::milliseconds timeout)
    : backend_(backend), timeout_(timeout), shared_(std::make_shared<Shared>()) {}

// Idle workers are joined; one still inside NVML is left behind, detached, and ends when its call
// comes back (it holds `shared_`, so nothing it touches goes away under it).
DeadlineSampler::~DeadlineSampler() {
  std::vector<std::thread> idle;
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stopping = true;
    for (auto& worker : shared_->workers) {
      if (!worker || !worker->thread.joinable()) continue;
      if (worker->busy) {
        worker->thread.detach();
      } else {
        idle.push_back(std::move(worker->thread));
      }
    }
  }
  shared_->asked.notify_all();
  for (auto& thread : idle) thread.join();
}

core::Snapshot DeadlineSampler::sample(const SampleOptions& options) {
  core::Snapshot snapshot;
  sample_into(options, snapshot);
  return snapshot;
}

void DeadlineSampler::sample_into(const SampleOptions& options, core::Snapshot& snapshot) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  snapshot = core::Snapshot{};
  snapshot.timestamp = std::chrono::system_clock::now();
  unsigned count = 0;
  snapshot.device_count = backend_.device_count(&count).ok() ? count : 0;
  std::vector<unsigned> indices = options.devices;
  if (indices.empty()) {
    for (unsigned i = 0; i < snapshot.device_count; ++i) indices.push_back(i);
  }

  std::unique_lock lock(shared_->mutex);
  std::vector<std::pair<unsigned, std::uint64_t>> asked;  // (index, round)
  for (unsigned index : indices) {
    if (shared_->workers.size() <= index) shared_->workers.resize(index + 1);
    auto& slot = shared_->workers[index];
    if (!slot) slot = std::make_unique<Worker>();
    Worker& worker = *slot;
    if (!worker.sampler) worker.sampler = std::make_unique<Sampler>(backend_);
    if (worker.busy) continue;  // still inside an earlier call: timed out again, not asked
    worker.busy = true;
    worker.done = false;
    ++worker.round;
    asked.emplace_back(index, worker.round);
    worker.request = options;
    worker.request.devices = {index};
    worker.requested = true;
    if (!worker.thread.joinable()) worker.thread = std::thread(run_worker, shared_, &worker);
  }
  if (!asked.empty()) shared_->asked.notify_all();
  shared_->finished.wait_until(lock, deadline, [&] {
    for (auto [index, round] : asked) {
      if (!shared_->workers[index]->done) return false;
    }
    return true;
  });

  bool any_timed_out = false;
  const core::ReadError timeout_error = backend_.error_of(core::ErrorReason::Timeout);
  for (unsigned index : indices) {
    Worker& worker = *shared_->workers[index];
    if (worker.done && !worker.result.devices.empty()) {
      core::Snapshot& result = worker.result;
      if (!snapshot.driver_version) snapshot.driver_version = result.driver_version;
      if (!snapshot.cuda_driver_version) snapshot.cuda_driver_version = result.cuda_driver_version;
      for (const auto& [code, text] : result.error_strings) snapshot.error_strings.try_emplace(code, text);
      worker.last_answer = result.devices.front();
      snapshot.devices.push_back(std::move(result.devices.front()));
      worker.done = false;  // taken
      continue;
    }
    if (worker.busy && !worker.abandoned) {
      worker.abandoned = true;
      backend::note_abandoned_call();
    }
    snapshot.devices.push_back(timed_out_device(index, options.fields, timeout_error));
    snapshot.devices.back().vendor = backend_.vendor_of(index);  // whose GPU hangs is still known
    if (worker.last_answer) keep_identity(*worker.last_answer, snapshot.devices.back());
    any_timed_out = true;
  }
  for (auto& device : snapshot.devices) {
    if (device.state == core::DeviceState::TimedOut) fill_system_fields(snapshot, device);
  }
  if (any_timed_out) snapshot.error_strings.try_emplace(timeout_error.vendor_code, kTimeoutText);
}

}  // namespace gpuwatch::sampler
