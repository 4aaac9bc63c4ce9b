#include "backend/backends.hpp"

#include <gtest/gtest.h>

#include <deque>

#include "sampler/sampler.hpp"

namespace gpuwatch::backend {
namespace backends_test {

using core::ErrorReason;
using core::FieldId;

// A vendor with COUNT devices named "<tag><local index>"; its events come from a queue.
class FakeBackend final : public DeviceBackend {
 public:
  FakeBackend(std::string tag, unsigned count) : tag_(std::move(tag)), count_(count) {}

  struct Events final : EventSource {
    std::deque<std::pair<Wait, DeviceEvent>>* queue;
    std::vector<unsigned> watched;
    std::vector<unsigned> watched_gpus() const override { return watched; }
    Wait wait(unsigned, DeviceEvent& event) override {
      if (queue->empty()) return Wait::TimedOut;
      auto [got, e] = queue->front();
      queue->pop_front();
      event = e;
      return got;
    }
  };
  mutable std::deque<std::pair<EventSource::Wait, DeviceEvent>> events;

  core::Vendor vendor() const override { return core::Vendor::Amd; }
  std::string describe() const override { return tag_; }
  core::ReadError device_count(unsigned* count) const override {
    *count = count_;
    return {};
  }
  core::ReadError handle_by_index(unsigned index, DeviceHandle* handle) const override {
    if (index >= count_) return {ErrorReason::NotFound, 6};
    *handle = DeviceHandle{this, &slots_[index]};
    return {};
  }
  core::ReadError read_source(DeviceHandle dev, core::Source, std::span<const FieldId> fields,
                              core::DeviceSnapshot& device) const override {
    EXPECT_EQ(dev.owner, this);  // a set of backends hands each call to the device's own backend
    const auto local = static_cast<unsigned>(static_cast<const char*>(dev.raw) - slots_);
    for (auto f : fields) {
      device.get(f) = f == FieldId::Name ? core::FieldReading::of(tag_ + std::to_string(local))
                                         : core::FieldReading::absent(core::FieldStatus::NotSupported, {ErrorReason::NotSupported, 3});
    }
    return {};
  }
  core::ReadError read_processes(DeviceHandle, unsigned long long*, core::DeviceSnapshot&) const override { return {}; }
  core::ReadError driver_version(std::string& out) const override {
    out = tag_ + "-1.0";
    return {};
  }
  core::ReadError cuda_driver_version(int*) const override { return {ErrorReason::NotSupported, 3}; }
  std::string error_text(core::ReadError error) const override { return tag_ + " error " + std::to_string(error.vendor_code); }
  core::ReadError error_of(ErrorReason reason) const override { return {reason, 100}; }
  core::ReadError last_error() const override { return {}; }
  std::unique_ptr<ProfilingReader> profiling_reader(unsigned) const override { return nullptr; }
  std::unique_ptr<EventSource> open_events(unsigned gpu_count) const override {
    auto source = std::make_unique<Events>();
    source->queue = &events;
    for (unsigned i = 0; i < gpu_count; ++i) source->watched.push_back(i);
    return source;
  }

 private:
  std::string tag_;
  unsigned count_;
  char slots_[8] = {};
};

std::vector<std::unique_ptr<DeviceBackend>> two_backends(FakeBackend** a = nullptr, FakeBackend** b = nullptr) {
  std::vector<std::unique_ptr<DeviceBackend>> out;
  auto first = std::make_unique<FakeBackend>("a", 2);
  auto second = std::make_unique<FakeBackend>("b", 3);
  if (a) *a = first.get();
  if (b) *b = second.get();
  out.push_back(std::move(first));
  out.push_back(std::move(second));
  return out;
}

TEST(Backends, TwoBackendsGiveGlobalIndicesInOrder) {
  FakeBackend* a = nullptr;
  FakeBackend* b = nullptr;
  Backends backends(two_backends(&a, &b));
  unsigned count = 0;
  ASSERT_TRUE(backends.device_count(&count).ok());
  EXPECT_EQ(count, 5u);
  EXPECT_EQ(backends.locate(1), (std::pair<const DeviceBackend*, unsigned>{a, 1}));
  EXPECT_EQ(backends.locate(2), (std::pair<const DeviceBackend*, unsigned>{b, 0}));
  EXPECT_EQ(backends.locate(5).first, nullptr);

  sampler::SampleOptions options;
  options.fields = {FieldId::Name, FieldId::Count};
  const core::Snapshot snap = sampler::sample(backends, options);
  ASSERT_EQ(snap.devices.size(), 5u);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    EXPECT_EQ(snap.devices[i].index, i);
    names.push_back(snap.devices[i].get(FieldId::Name).as_string().value_or("?"));
    EXPECT_EQ(snap.devices[i].get(FieldId::Count).as_uint(), 5u);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a0", "a1", "b0", "b1", "b2"}));
  DeviceHandle past;
  EXPECT_EQ(backends.handle_by_index(5, &past).reason, ErrorReason::NotFound);
}

core::Result<std::unique_ptr<DeviceBackend>> open_broken(const OpenOptions& options) {
  return core::make_error("broken vendor library not found: cannot load " + options.nvidia_library, 1);
}
core::Result<std::unique_ptr<DeviceBackend>> open_fake(const OpenOptions&) {
  return std::unique_ptr<DeviceBackend>(std::make_unique<FakeBackend>("f", 2));
}

TEST(Backends, ABackendThatFailsToOpenLeavesTheOthersWorkingAndNamesItsError) {
  const Opener table[] = {{"broken", &open_broken}, {"fake", &open_fake}};
  auto backends = Backends::open(table, OpenOptions{"/nowhere/lib.so"});
  ASSERT_FALSE(backends->empty());
  EXPECT_EQ(backends->size(), 1u);
  ASSERT_EQ(backends->failures().size(), 1u);
  EXPECT_EQ(backends->failures()[0].backend, "broken");
  EXPECT_EQ(backends->failure_text(), "broken vendor library not found: cannot load /nowhere/lib.so");
  unsigned count = 0;
  ASSERT_TRUE(backends->device_count(&count).ok());
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(backends->static_info(1).name, "f1");
}

TEST(Backends, NoneOpenedIsEmptyWithEveryMessage) {
  const Opener table[] = {{"broken", &open_broken}, {"broken too", &open_broken}};
  auto backends = Backends::open(table, OpenOptions{"x"});
  EXPECT_TRUE(backends->empty());
  EXPECT_EQ(backends->failures().size(), 2u);
  unsigned count = 7;
  EXPECT_FALSE(backends->device_count(&count).ok());
  EXPECT_EQ(backends->open_events(4)->watched_gpus(), std::vector<unsigned>{});
}

TEST(Backends, EventsOfTheSecondBackendGetGlobalIndices) {
  FakeBackend* b = nullptr;
  Backends backends(two_backends(nullptr, &b));
  b->events.push_back({EventSource::Wait::Skipped, {}});
  b->events.push_back({EventSource::Wait::Event, {1, 79}});
  auto events = backends.open_events(5);
  EXPECT_EQ(events->watched_gpus(), (std::vector<unsigned>{0, 1, 2, 3, 4}));
  const auto drained = events->drain();
  ASSERT_EQ(drained.size(), 1u);  // the skipped one does not end the drain, the timeout does
  EXPECT_EQ(drained[0].gpu, 3u);  // b's GPU 1 after a's two
  EXPECT_EQ(drained[0].code, 79u);
}

TEST(Backends, StaticInfoComesFromTheReadGroups) {
  Backends backends(two_backends());
  const StaticInfo info = backends.static_info(3);
  EXPECT_EQ(info.name, "b1");
  EXPECT_FALSE(info.uuid.has_value());  // not supported by the fake: absent, never ""
}

}  // namespace backends_test
}  // namespace gpuwatch::backend
