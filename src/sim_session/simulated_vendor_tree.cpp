#include "sim_session/simulated_vendor_tree.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <string_view>

#include "sim/engine/host_signal_tree.hpp"
#include "sim/engine/host_tree.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim/engine/vendor_tree.hpp"
#include "sim_session/environment.hpp"

namespace gpuwatch::sim_session {

namespace {

// The simulated Level Zero driver's clock control (sim/ze_driver), when that driver is loaded in
// this process: ZE_ENABLE_ALT_DRIVERS' first entry, looked up without loading it.
void move_level_zero_clock(long long unix_ms) {
  const char* drivers = std::getenv("ZE_ENABLE_ALT_DRIVERS");
  if (drivers == nullptr || *drivers == '\0') return;
  std::string first = drivers;
  if (auto comma = first.find(','); comma != std::string::npos) first.resize(comma);
  void* handle = dlopen(first.c_str(), RTLD_NOLOAD | RTLD_NOW);  // NOLINT: dlopen of a loaded library only
  if (handle == nullptr) return;
  using SetClock = void (*)(long long);
  if (auto set = reinterpret_cast<SetClock>(dlsym(handle, "gpuwatch_sim_ze_set_clock_ms"))) set(unix_ms);
  dlclose(handle);  // drops the reference NOLOAD took; the loader's stays
}

class VendorFileTree final : public backend::SimulatedTree {
 public:
  VendorFileTree(std::unique_ptr<sim::Simulation> sim, const SimulatedTreeSettings& settings)
      : sim_(std::move(sim)), tree_(*sim_, settings.root, settings.epoch_ms), clock_ms_(settings.clock_ms),
        period_(settings.refresh_period) {
    if (sim_->scenario().host.signals) host_.emplace(*sim_, settings.root, settings.epoch_ms);
  }

  void refresh() override {
    std::lock_guard lock(mutex_);
    if (clock_ms_ != 0) {
      if (rendered_ms_ != clock_ms_) render(clock_ms_);
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (rendered_ms_ != 0 && now - rendered_at_ < period_) {
      // The host's counters closer to the moment read (the host sampler refreshes once per reading):
      // a rate over 1 s is then within 1 % of the scenario's, where the 100 ms period could miss by 10 %.
      if (host_ && now - host_rendered_at_ >= kHostRefreshPeriod) render_host(unix_time_ms());
      return;
    }
    render(unix_time_ms());
  }

  void set_clock(long long unix_ms) override {
    {
      std::lock_guard lock(mutex_);
      // Every backend reading the tree passes the clock on (AMD's and Intel's): one render a moment.
      const bool shown = unix_ms != 0 && clock_ms_ == unix_ms && rendered_ms_ == unix_ms;
      clock_ms_ = unix_ms;
      if (!shown) render(unix_ms != 0 ? unix_ms : unix_time_ms());
    }
    move_level_zero_clock(unix_ms);
  }

  std::optional<double> time_scale() const override { return sim_->scenario().time_scale; }

 private:
  // The caller holds mutex_.
  void render(std::int64_t unix_ms) {
    auto done = tree_.render_at_unix_ms(unix_ms);
    if (host_) {
      auto host_done = host_->render_at_unix_ms(unix_ms);
      host_rendered_at_ = std::chrono::steady_clock::now();
      if (done && !host_done) done = std::move(host_done);
    }
    if (!done && !warned_) {
      warned_ = true;
      std::fprintf(stderr, "gpuwatch: %s\n", done.error().message.c_str());
    }
    rendered_ms_ = unix_ms;
    rendered_at_ = std::chrono::steady_clock::now();
  }

  // The caller holds mutex_.
  void render_host(std::int64_t unix_ms) {
    auto done = host_->render_at_unix_ms(unix_ms);
    host_rendered_at_ = std::chrono::steady_clock::now();
    if (!done && !warned_) {
      warned_ = true;
      std::fprintf(stderr, "gpuwatch: %s\n", done.error().message.c_str());
    }
  }

  static constexpr std::chrono::milliseconds kHostRefreshPeriod{10};

  std::unique_ptr<sim::Simulation> sim_;  // the tree reads it: declared first, destroyed last
  sim::VendorTree tree_;                      // the AMD and Intel cards (none: writes nothing)
  std::optional<sim::HostSignalTree> host_;  // `host: signals:` (issue 25)
  std::mutex mutex_;
  std::int64_t clock_ms_;
  std::chrono::milliseconds period_;
  std::int64_t rendered_ms_ = 0;  // the Unix ms of the last render (0: none yet)
  std::chrono::steady_clock::time_point rendered_at_{};
  std::chrono::steady_clock::time_point host_rendered_at_{};  // the host's files' last render
  bool warned_ = false;
};

std::int64_t vendor_tree_env_integer(const char* name, std::int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtoll(text, nullptr, 10);
}

}  // namespace

std::shared_ptr<backend::SimulatedTree> make_simulated_vendor_tree(const SimulatedTreeSettings& settings, std::string* why) {
  auto scenario = sim::load_scenario(settings.scenario);
  if (!scenario) {
    if (why) *why = scenario.error().message;
    return nullptr;
  }
  if (sim::vendor_cards(*scenario).empty() && !scenario->host.signals) {
    if (why) *why = fmt::format("{} has no AMD or Intel GPU and no host signals", settings.scenario);
    return nullptr;
  }
  sim::PidSources pids;
  pids.standins = sim::PidSources::parse_standins(settings.pids);
  auto simulation = std::make_unique<sim::Simulation>(std::move(*scenario), pids);
  auto tree = std::make_shared<VendorFileTree>(std::move(simulation), settings);
  tree->refresh();  // the files exist before any backend looks for them
  return tree;
}

std::shared_ptr<backend::SimulatedTree> simulated_vendor_tree_from_environment() {
  const char* scenario = std::getenv(sim::kScenarioEnv);
  const char* root = std::getenv(sim::kHostRootEnv);
  const char* vendor_files = std::getenv(sim::kVendorFilesEnv);
  if (scenario == nullptr || *scenario == '\0' || root == nullptr || *root == '\0') return nullptr;
  if (vendor_files == nullptr || std::string_view(vendor_files) != "1") return nullptr;  // no AMD/Intel GPU, no host signals
  SimulatedTreeSettings settings;
  settings.scenario = scenario;
  settings.root = root;
  settings.epoch_ms = vendor_tree_env_integer(sim::kEpochEnv, unix_time_ms());
  settings.clock_ms = vendor_tree_env_integer(sim::kClockEnv, 0);
  if (const char* pids = std::getenv(sim::kPidsEnv)) settings.pids = pids;
  return make_simulated_vendor_tree(settings);
}

}  // namespace gpuwatch::sim_session
