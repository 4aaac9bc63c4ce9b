// The live diagnosis's process identities (live/live_identities.hpp, issue 23): two jobs
// with the same NVML process name on different GPUs stay two jobs when their command lines and
// users differ; each process is read once (PID + start time), never again per tick.
#include "live/live_identities.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "live/live_diagnosis.hpp"
#include "unit/diagnose/sim_feed.hpp"

namespace gpuwatch::live {
namespace live_identities_test {  // this test file's helpers (unity builds: no clash with another file's)

using diagnose::testing::at_s;
using diagnose::testing::SimFeed;

// A fake /proc: identities and start times by PID, and how often each was read.
struct FakeProc {
  std::map<std::uint32_t, diagnose::ProcessIdentity> identities;
  std::map<std::uint32_t, std::uint64_t> starts;
  std::map<std::uint32_t, int> reads;
  IdentityReader reader() {
    IdentityReader r;
    r.start_of = [this](std::uint32_t pid) -> std::optional<std::uint64_t> {
      auto it = starts.find(pid);
      return it == starts.end() ? std::nullopt : std::optional(it->second);
    };
    r.identity_of = [this](std::uint32_t pid) {
      ++reads[pid];
      auto it = identities.find(pid);
      return it == identities.end() ? diagnose::ProcessIdentity{} : it->second;
    };
    return r;
  }
};

std::set<std::uint32_t> pids_of(const core::Snapshot& s) {
  std::set<std::uint32_t> out;
  for (const auto& d : s.devices)
    for (const auto& p : d.processes) out.insert(p.pid);
  return out;
}

// nccl_hang through the live path (LiveDiagnosis over SimFeed's snapshots) up to 5 minutes in.
std::vector<diagnose::Finding> live_findings(const SimFeed& feed, IdentityReader reader) {
  int t = 0;
  LiveDiagnosis live([&] { return DiagnosisInput{feed.snapshot(t), {}, {}}; }, std::chrono::seconds(1), {}, {},
                     std::move(reader));
  for (; t <= 300; ++t) live.tick(at_s(t));
  return live.active();
}

bool spans(const diagnose::Finding& f, const std::set<unsigned>& a, const std::set<unsigned>& b) {
  const auto in = [&](const std::set<unsigned>& g) {
    return std::any_of(f.gpus.begin(), f.gpus.end(), [&](unsigned x) { return g.count(x) != 0; });
  };
  return in(a) && in(b);
}

TEST(LiveIdentities, SameNameDifferentCommandsAndUsersStayTwoJobs) {
  const SimFeed feed = SimFeed::builtin("nccl_hang");  // 4 GPUs, one process each, one NVML name
  const core::Snapshot first = feed.snapshot(0);
  ASSERT_EQ(first.devices.size(), 4u);
  std::set<std::string> names;
  for (const auto& d : first.devices) {
    ASSERT_EQ(d.processes.size(), 1u);
    names.insert(d.processes[0].name);
  }
  ASSERT_EQ(names.size(), 1u);  // the same NVML name on every GPU: by name alone, one job

  // Control: with no identities the four GPUs are one job, and one collective_hang spans them.
  const auto merged = live_findings(feed, {});
  ASSERT_TRUE(std::any_of(merged.begin(), merged.end(), [](const diagnose::Finding& f) {
    return f.kind == "collective_hang" && spans(f, {0, 1}, {2, 3});
  }));

  // GPUs 0-1 run alice's job, GPUs 2-3 bob's: same name, other command lines and users.
  FakeProc proc;
  for (const auto& d : first.devices) {
    const std::uint32_t pid = d.processes[0].pid;
    const bool alice = d.index < 2;
    proc.starts[pid] = 1000 + pid;
    proc.identities[pid] = {.command = alice ? "python train.py --config a.yaml" : "python serve.py --port 8000",
                            .user = alice ? "alice" : "bob"};
  }
  const auto split = live_findings(feed, proc.reader());
  for (const auto& f : split) {
    EXPECT_FALSE(spans(f, {0, 1}, {2, 3})) << f.kind << " joins the two jobs";
    if (f.job) EXPECT_TRUE(f.job->label.find(f.gpus.front() < 2 ? "alice" : "bob") != std::string::npos) << f.job->label;
  }
  for (const auto& [pid, n] : proc.reads) EXPECT_EQ(n, 1) << "PID " << pid << " read more than once";
  EXPECT_EQ(proc.reads.size(), pids_of(first).size());
}

// A fake /proc tree in a temp dir: what the simulator's stand-ins look like to the real reader
// (one launcher, one command, one user for the four ranks).
class FakeProcTree {
 public:
  FakeProcTree() : root_(std::filesystem::temp_directory_path() / ("gpuwatch-identities-" + std::to_string(std::random_device{}()))) {}
  ~FakeProcTree() { std::filesystem::remove_all(root_); }
  void add(std::uint32_t pid, std::uint32_t parent, const std::string& command, unsigned uid) {
    const auto dir = root_ / std::to_string(pid);
    std::filesystem::create_directories(dir);
    std::string cmdline = command;
    std::replace(cmdline.begin(), cmdline.end(), ' ', '\0');
    write(dir / "cmdline", cmdline + '\0');
    write(dir / "comm", "python\n");
    write(dir / "stat", std::to_string(pid) + " (python) S " + std::to_string(parent) +
                            " 1 1 0 -1 0 0 0 0 0 10 5 0 0 20 0 1 0 " + std::to_string(5000 + pid) + " 0 0\n");
    write(dir / "status", "Name:\tpython\nUid:\t" + std::to_string(uid) + "\t" + std::to_string(uid) + "\t0\t0\n");
    write(dir / "cgroup", "0::/user.slice\n");
    write(dir / "environ", std::string("PATH=/bin\0HOME=/h\0", 18));
  }
  std::string root() const { return root_.string(); }

 private:
  static void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }
  std::filesystem::path root_;
};

TEST(LiveIdentities, NcclHangIsOneCollectiveHangWithTheProcReader) {
  const SimFeed feed = SimFeed::builtin("nccl_hang");
  FakeProcTree proc;
  for (const auto& d : feed.snapshot(0).devices)
    proc.add(d.processes.at(0).pid, 777, "torchrun --nproc-per-node 4 train.py --config configs/gpt-1b.yaml", 4242);
  const IdentityReader reader = proc_identity_reader(proc.root());
  const diagnose::ProcessIdentity one = reader.identity_of(feed.snapshot(0).devices[0].processes[0].pid);
  EXPECT_EQ(one.parent_pid, 777u);
  EXPECT_EQ(one.user, "4242");
  EXPECT_FALSE(one.slurm_job);
  EXPECT_FALSE(one.run_job);

  const auto findings = live_findings(feed, reader);
  std::vector<diagnose::Finding> hangs;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(hangs),
               [](const diagnose::Finding& f) { return f.kind == "collective_hang"; });
  ASSERT_EQ(hangs.size(), 1u);
  EXPECT_EQ(hangs[0].gpus, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(hangs[0].cause_gpus, (std::vector<unsigned>{3}));
  ASSERT_TRUE(hangs[0].job);
  EXPECT_EQ(hangs[0].job->label.rfind("job of PID 777 (4242, torchrun --nproc-per-node 4 train.py", 0), 0u) << hangs[0].job->label;
}

// A restart during a hang: the engine primed from the history (command lines only, as
// history/process_identities.hpp replays them) keeps one collective_hang: the processes already
// running keep the history's grouping (telling their launcher and user now would make their GPUs
// another job, and the hang two findings for a minute); a process started later is read.
TEST(LiveIdentities, APrimedHangSurvivesTheLiveIdentities) {
  const SimFeed feed = SimFeed::builtin("nccl_hang");
  const std::string command = "torchrun --nproc-per-node 4 train.py --config configs/gpt-1b.yaml";
  diagnose::Diagnoser primed;
  FakeProc proc;
  for (const auto& d : feed.snapshot(0).devices) {
    const std::uint32_t pid = d.processes.at(0).pid;
    primed.identify(pid, {.command = command});
    proc.starts[pid] = 1;
    proc.identities[pid] = {.command = command, .user = "olga", .parent_pid = 777};
  }
  int t = 0;
  for (; t <= 280; ++t) primed.observe(feed.snapshot(t));
  const auto is_hang = [](const diagnose::Finding& f) { return f.kind == "collective_hang"; };
  const auto before = primed.findings();
  ASSERT_EQ(std::count_if(before.begin(), before.end(), is_hang), 1);
  LiveDiagnosis live([&] { return DiagnosisInput{feed.snapshot(t), {}, {}}; }, std::chrono::seconds(1), {},
                     std::move(primed), proc.reader());
  for (const int end = t + 120; t <= end; ++t) {
    live.tick(at_s(t));
    const auto active = live.active();
    ASSERT_EQ(std::count_if(active.begin(), active.end(), is_hang), 1) << "at " << t;
  }
  EXPECT_TRUE(proc.reads.empty());  // adopted, not read
}

TEST(LiveIdentities, EachProcessIsReadOnceAndAReusedPidAgain) {
  diagnose::Diagnoser diagnoser;
  FakeProc proc;
  proc.starts = {{10, 1}, {11, 1}};
  proc.identities[10] = {.command = "python a.py", .user = "alice"};
  LiveIdentities identities(proc.reader());
  core::Snapshot s;
  s.devices.resize(2);
  s.devices[0].processes = {{.pid = 10, .name = "python"}};
  s.devices[1].processes = {{.pid = 11, .name = "python"}};
  for (int i = 0; i < 50; ++i) identities.feed(s, diagnoser);
  EXPECT_EQ(proc.reads[10], 1);
  EXPECT_EQ(proc.reads[11], 1);  // nothing known about it: absent, and not asked again each tick
  EXPECT_EQ(identities.identities_read(), 2u);

  // PID 10 is gone for a tick and back with the same start: the same process, not read again.
  s.devices[0].processes.clear();
  identities.feed(s, diagnoser);
  s.devices[0].processes = {{.pid = 10, .name = "python"}};
  identities.feed(s, diagnoser);
  EXPECT_EQ(proc.reads[10], 1);
  // ... and back with another start: a new process behind a reused PID, read again.
  s.devices[0].processes.clear();
  identities.feed(s, diagnoser);
  proc.starts[10] = 2;
  s.devices[0].processes = {{.pid = 10, .name = "python"}};
  identities.feed(s, diagnoser);
  EXPECT_EQ(proc.reads[10], 2);
}

TEST(LiveIdentities, TheCacheIsBounded) {
  diagnose::Diagnoser diagnoser;
  FakeProc proc;
  LiveIdentities identities(proc.reader(), 8);
  core::Snapshot s;
  s.devices.resize(1);
  for (std::uint32_t pid = 1; pid <= 100; ++pid) {
    s.devices[0].processes = {{.pid = pid, .name = "python"}};
    identities.feed(s, diagnoser);
    EXPECT_LE(identities.known(), 9u);
  }
}

TEST(LiveIdentities, RunJobFromTheEnvironment) {
  using namespace std::string_literals;
  EXPECT_EQ(run_job_of_environ("PATH=/bin\0GPUWATCH_JOB_ID=42\0HOME=/root\0"s), "42");
  EXPECT_EQ(run_job_of_environ("PATH=/bin\0GPUWATCH_JOB_ID=\0"s), std::nullopt);
  EXPECT_EQ(run_job_of_environ("XGPUWATCH_JOB_ID=4\0"s), std::nullopt);
  EXPECT_EQ(run_job_of_environ(""), std::nullopt);
}

}  // namespace live_identities_test
}  // namespace gpuwatch::live
