#pragma once
// /metrics under load: the scrapes that arrive within a short window of each other share
// one encoding of the latest samples, so 64 concurrent scrapers cost one encode per window
// instead of 64 (encoding is about half the CPU of a scrape; bench/serve_load.sh). A lone
// scraper (Prometheus every 15 s) always gets a fresh encoding: the window is far shorter
// than any scrape interval, and at most what a scrape that started that much earlier
// would have seen (sample ages are then up to the window low).
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace gpuwatch::exporter {

// The reuse window for a sampling INTERVAL: a tenth of it, at most 50 ms (0: no reuse).
std::chrono::milliseconds metrics_reuse_window(std::chrono::milliseconds interval);

class MetricsBodyCache {
 public:
  using Clock = std::chrono::steady_clock;
  explicit MetricsBodyCache(std::chrono::milliseconds reuse_for) : reuse_for_(reuse_for) {}

  // The body encoded at most reuse_for before NOW, else a new one from ENCODE (which fills
  // the string it is given; called under this cache's lock, so concurrent scrapes wait for
  // one encoding instead of each making their own). The result stays valid after the
  // cache moves on.
  std::shared_ptr<const std::string> get(Clock::time_point now, const std::function<void(std::string&)>& encode);

 private:
  std::mutex mutex_;
  const std::chrono::milliseconds reuse_for_;
  std::shared_ptr<const std::string> body_;
  Clock::time_point encoded_at_{};
};

}  // namespace gpuwatch::exporter
