#pragma once
// Hysteresis for findings: a condition raises a finding after holding for a few samples in a
// row and ends it only after being false for a while, so findings do not flap. Each key
// (kind, GPU, sub-key: a PID or an Xid) has at most one open finding; ended ones are kept.
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "diagnose/finding.hpp"
#include "diagnose/kinds.hpp"
#include "diagnose/thresholds.hpp"

namespace gpuwatch::diagnose {

struct TrackKey {
  Kind kind;
  unsigned gpu = 0;
  std::uint64_t sub = 0;  // PID for per-process kinds, Xid for xid, 0 otherwise
  bool operator<(const TrackKey& o) const { return std::tie(gpu, kind, sub) < std::tie(o.gpu, o.kind, o.sub); }
};

struct Hysteresis {
  int raise_after = thresholds::kRaiseAfterEvaluations;  // consecutive true evaluations
  double clear_after_s = thresholds::kClearAfterS;        // false this long ends it
};
inline constexpr Hysteresis kImmediate{1, thresholds::kClearAfterS};

class FindingTracker {
 public:
  // One evaluation of KEY's condition at T_S: SEVERITY set means it holds. FILL(Finding&)
  // writes evidence, detail, impact, summary (and may change advice); it is called only when
  // the finding is raised and then at most every kRenderIntervalS, so a held condition costs
  // little per sample.
  template <class Fill>
  void update(const TrackKey& key, std::optional<Severity> severity, double t_s, Fill&& fill,
              Hysteresis h = Hysteresis{}) {
    auto it = open_.find(key);
    if (!severity) {
      if (it != open_.end()) falsify(it, t_s, h);
      return;
    }
    if (it == open_.end()) it = open_.emplace(key, Open{}).first;
    Open& o = it->second;
    if (o.streak == 0) o.first_true_s = t_s;
    ++o.streak;
    o.last_true_s = t_s;
    o.false_since_s.reset();
    if (!o.raised && o.streak < h.raise_after) return;
    // Evidence is refreshed while the condition is at its worst severity so far: a finding
    // on its way out keeps the numbers of its worst moment.
    const bool render = !o.raised || *severity > o.finding.severity ||
                        (*severity == o.finding.severity && t_s - o.last_render_s >= thresholds::kRenderIntervalS);
    if (!o.raised) start(o, key, *severity, o.first_true_s);
    if (*severity > o.finding.severity) o.finding.severity = *severity;
    o.finding.end = from_seconds_(t_s);
    if (render) {
      fill(o.finding);
      refresh_uuids(o.finding);
      o.last_render_s = t_s;
    }
  }

  // Sets the identity shown in findings of GPU (from the snapshots).
  void set_uuid(unsigned gpu, const std::string& uuid);
  // Sets GPU's vendor: its findings' default advice is in that vendor's words (NVIDIA's until set).
  void set_vendor(unsigned gpu, core::Vendor vendor) { vendors_[gpu] = vendor; }
  // Ends every open finding of GPU except those of the kinds in KEEP (e.g. when it is lost).
  void end_gpu(unsigned gpu, double t_s, std::initializer_list<Kind> keep);

  std::vector<Finding> active() const;
  std::vector<Finding> all() const;  // ended and active, in finding_before order
  bool is_active(const TrackKey& key) const;
  const Finding* find(const TrackKey& key) const;  // the raised, open finding of KEY, or nullptr

 private:
  struct Open {
    Finding finding;
    bool raised = false;
    int streak = 0;
    double first_true_s = 0, last_true_s = 0, last_render_s = 0;
    std::optional<double> false_since_s;
  };
  using Map = std::map<TrackKey, Open>;
  void start(Open& o, const TrackKey& key, Severity severity, double t_s);
  void falsify(Map::iterator it, double t_s, Hysteresis h);
  void close(Map::iterator it);
  void refresh_uuids(Finding& f) const;  // uuids follow gpus (a fill may change gpus)
  static std::chrono::system_clock::time_point from_seconds_(double t_s);

  Map open_;
  std::vector<Finding> closed_;
  std::map<unsigned, std::string> uuids_;
  std::map<unsigned, core::Vendor> vendors_;
};

}  // namespace gpuwatch::diagnose
