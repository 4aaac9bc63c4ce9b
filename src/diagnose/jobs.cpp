#include "diagnose/jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>

namespace gpuwatch::diagnose {
namespace {

constexpr std::size_t kJobLabelCommandBytes = 80;  // a label quotes this much of a command
constexpr std::size_t kJobTablePruneAt = 256;      // jobs followed before the gone ones are dropped

std::string clipped_command(std::string_view command) {
  if (command.size() <= kJobLabelCommandBytes) return std::string(command);
  std::size_t cut = kJobLabelCommandBytes;
  while (cut > 0 && (static_cast<unsigned char>(command[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return std::string(command.substr(0, cut)) + "…";
}

// "(alice, torchrun train.py)" from what is known.
std::string job_who(const ProcessIdentity* id, const std::string* name) {
  std::string what = id && id->command ? clipped_command(*id->command) : name && !name->empty() ? *name : std::string();
  std::string who = id && id->user ? *id->user : std::string();
  if (!who.empty() && !what.empty()) return fmt::format(" ({}, {})", who, what);
  if (!who.empty() || !what.empty()) return fmt::format(" ({})", who.empty() ? what : who);
  return "";
}

}  // namespace

std::string rank_free_command(std::string_view command) {
  std::string out;
  out.reserve(command.size());
  std::size_t i = 0;
  while (i < command.size()) {
    const std::size_t end = std::min(command.find(' ', i), command.size());
    std::string_view word = command.substr(i, end - i);
    // A whole word of digits ("--stage 1"), or the digits after '=' ("--local-rank=3").
    const std::size_t eq = word.rfind('=');
    const std::size_t from = eq == std::string_view::npos ? 0 : eq + 1;
    const bool number = from < word.size() && std::all_of(word.begin() + static_cast<long>(from), word.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    out += number ? std::string(word.substr(0, from)) + "#" : std::string(word);
    if (end < command.size()) out += ' ';
    i = end + 1;
  }
  return out;
}

std::optional<JobRef> job_of_process(std::uint32_t pid, const std::string* name, const ProcessIdentity* id) {
  const std::string who = job_who(id, name);
  if (id && id->run_job) return JobRef{"run:" + *id->run_job, fmt::format("gpuwatch run job {}{}", *id->run_job, who)};
  if (id && id->slurm_job) return JobRef{"slurm:" + *id->slurm_job, fmt::format("Slurm job {}{}", *id->slurm_job, who)};
  if (id && id->pod) return JobRef{"pod:" + *id->pod, fmt::format("pod {}{}", *id->pod, who)};
  if (id && id->parent_pid && id->command)
    return JobRef{fmt::format("pid:{}:{}", *id->parent_pid, rank_free_command(*id->command)),
                  fmt::format("job of PID {}{}", *id->parent_pid, who)};
  if (id && id->command)
    return JobRef{fmt::format("cmd:{}:{}", id->user.value_or(""), rank_free_command(*id->command)),
                  clipped_command(*id->command) + (id->user ? " (" + *id->user + ")" : "")};
  if (name && !name->empty()) return JobRef{"name:" + rank_free_command(*name), clipped_command(*name)};
  (void)pid;
  return std::nullopt;
}

// The identities remembered at most (a node runs far fewer GPU processes at once); past it the
// longest-known are forgotten, and a process still running falls back to its NVML name.
constexpr std::size_t kMaxProcessIdentities = 4096;

void JobTable::identify(std::uint32_t pid, ProcessIdentity identity) {
  auto [it, fresh] = identities_.try_emplace(pid, identity);
  if (fresh) {
    identity_order_.push_back(pid);
    while (identities_.size() > kMaxProcessIdentities && !identity_order_.empty()) {
      identities_.erase(identity_order_.front());
      identity_order_.pop_front();
    }
    ++identity_generation_;
    return;
  }
  if (it->second == identity) return;
  it->second = std::move(identity);
  ++identity_generation_;
}

int JobTable::index_of(const JobRef& ref, double t_s) {
  auto [it, fresh] = by_id_.try_emplace(ref.id, static_cast<int>(jobs_.size()));
  if (fresh) {  // labelled after the first rank seen (the others differ in rank numbers only)
    JobTrack job;
    job.ref = ref;
    job.key = std::hash<std::string>{}(ref.id);
    job.last_seen_s = t_s;
    jobs_.push_back(std::move(job));
  }
  return it->second;
}

void JobTable::assign(std::map<unsigned, GpuState>& gpus, double t_s) {
  for (auto& job : jobs_) job.members.clear();
  for (auto& [index, st] : gpus) {
    const GpuSample& s = st.sample;
    if (s.t_s != t_s) {  // not in this snapshot
      st.job = -1;
      continue;
    }
    const ProcessView* main = nullptr;
    for (const auto& p : s.processes)
      if (!p.graphics_only && (!main || p.used_bytes.value_or(0) > main->used_bytes.value_or(0))) main = &p;
    if (!main) {
      st.job = -1;
      continue;
    }
    const std::string* name = main->name;
    const bool same = st.job >= 0 && st.job_pid == main->pid && st.job_generation == identity_generation_ &&
                      (name ? *name == st.job_name : st.job_name.empty());
    if (!same) {
      auto id = identities_.find(main->pid);
      auto ref = job_of_process(main->pid, name, id == identities_.end() ? nullptr : &id->second);
      st.job = ref ? index_of(*ref, t_s) : -1;
      st.job_pid = main->pid;
      st.job_name = name ? *name : std::string();
      st.job_generation = identity_generation_;
      if (st.job < 0) continue;
    }
    JobTrack& job = jobs_[static_cast<std::size_t>(st.job)];
    job.members.push_back(index);
    job.last_member_s[index] = t_s;
    job.last_seen_s = t_s;
  }
  if (jobs_.size() > kJobTablePruneAt) prune(gpus, t_s);
}

// Drops the jobs gone for a long window and not hanging; the GPUs' cached indices follow.
void JobTable::prune(std::map<unsigned, GpuState>& gpus, double t_s) {
  std::vector<JobTrack> kept;
  std::vector<int> moved(jobs_.size(), -1);
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    if (jobs_[i].members.empty() && !jobs_[i].hang_open && t_s - jobs_[i].last_seen_s > thresholds::kLongWindowS) continue;
    moved[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(jobs_[i]));
  }
  jobs_ = std::move(kept);
  by_id_.clear();
  for (std::size_t i = 0; i < jobs_.size(); ++i) by_id_[jobs_[i].ref.id] = static_cast<int>(i);
  for (auto& [index, st] : gpus) {
    if (st.job >= 0) st.job = moved[static_cast<std::size_t>(st.job)];
    if (st.job < 0) st.job_pid = 0, st.job_generation = 0;  // look it up again
  }
}

}  // namespace gpuwatch::diagnose
