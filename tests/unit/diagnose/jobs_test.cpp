// Jobs (issue 23): which GPUs belong together - from the `gpuwatch run` job, the Slurm job, the
// pod, the launcher, the command line without its rank numbers, or the process name.
#include <gtest/gtest.h>

#include "diagnose/diagnoser.hpp"
#include "diagnose/jobs.hpp"
#include "snapshot_builder.hpp"

namespace gpuwatch::diagnose::testing {
namespace jobs_test {

// A snapshot of N GPUs, each with one process: PID 500+i named NAMES[i].
core::Snapshot ranks(double t, const std::vector<std::string>& names) {
  core::Snapshot s;
  s.timestamp = at_s(t);
  for (unsigned i = 0; i < names.size(); ++i) {
    core::Snapshot one = make_snapshot(t, GpuValues{.util = 0.9, .power_w = 500}, i);
    core::DeviceSnapshot d = std::move(one.devices.front());
    core::ProcessSample p;
    p.pid = 500 + i;
    p.name = names[i];
    p.used_memory_bytes = 1ull << 30;
    d.processes.push_back(p);
    s.devices.push_back(std::move(d));
  }
  s.device_count = static_cast<unsigned>(names.size());
  return s;
}

// The job index of each GPU after one assign().
std::vector<int> jobs_of(JobTable& table, const core::Snapshot& s) {
  std::map<unsigned, GpuState> gpus;
  const double t = to_seconds(s.timestamp);
  for (const auto& d : s.devices) extract(d, t, gpus[d.index].sample);
  table.assign(gpus, t);
  std::vector<int> out;
  for (const auto& [index, st] : gpus) out.push_back(st.job);
  return out;
}

TEST(DiagnoseJobs, RankNumbersAreTakenOutOfCommands) {
  EXPECT_EQ(rank_free_command("python pipeline_parallel.py --stage 1"), "python pipeline_parallel.py --stage #");
  EXPECT_EQ(rank_free_command("python train.py --local-rank=12 --config gpt-7b.yaml"),
            "python train.py --local-rank=# --config gpt-7b.yaml");
  EXPECT_NE(rank_free_command("torchrun train.py --config gpt-1b.yaml"), rank_free_command("torchrun train.py --config gpt-7b.yaml"));
  EXPECT_EQ(rank_free_command("python pipeline_parallel.py --stage 0"),
            rank_free_command("python pipeline_parallel.py --stage 3"));
  EXPECT_NE(rank_free_command("python train.py"), rank_free_command("python eval.py"));
}

TEST(DiagnoseJobs, TheStrongestIdentityWins) {
  const std::string name = "python";
  ProcessIdentity id;
  EXPECT_EQ(job_of_process(1, &name, nullptr)->id, "name:python");
  EXPECT_FALSE(job_of_process(1, nullptr, nullptr));
  id.command = "python train.py --rank 2";
  id.user = "alice";
  EXPECT_EQ(job_of_process(1, &name, &id)->id, "cmd:alice:python train.py --rank #");
  EXPECT_EQ(job_of_process(1, &name, &id)->label, "python train.py --rank 2 (alice)");
  id.parent_pid = 77;
  EXPECT_EQ(job_of_process(1, &name, &id)->id, "pid:77:python train.py --rank #");
  id.pod = "ml/trainer-0";
  EXPECT_EQ(job_of_process(1, &name, &id)->id, "pod:ml/trainer-0");
  id.slurm_job = "4711";
  auto slurm = job_of_process(1, &name, &id);
  EXPECT_EQ(slurm->id, "slurm:4711");
  EXPECT_EQ(slurm->label, "Slurm job 4711 (alice, python train.py --rank 2)");
  id.run_job = "12";
  EXPECT_EQ(job_of_process(1, &name, &id)->id, "run:12");
}

TEST(DiagnoseJobs, SameNameIsOneJobDifferentCommandsAreTwo) {
  JobTable table;
  auto s = ranks(1000, {"python", "python", "python"});
  auto jobs = jobs_of(table, s);
  EXPECT_EQ(jobs, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(table.jobs()[0].members, (std::vector<unsigned>{0, 1, 2}));
  // With the command lines known: GPUs 0-1 train, GPU 2 serves another model.
  table.identify(500, {.command = "python train.py --rank 0", .user = "olga"});
  table.identify(501, {.command = "python train.py --rank 1", .user = "olga"});
  table.identify(502, {.command = "python serve.py", .user = "olga"});
  jobs = jobs_of(table, ranks(1005, {"python", "python", "python"}));
  EXPECT_EQ(jobs[0], jobs[1]);
  EXPECT_NE(jobs[0], jobs[2]);
  EXPECT_EQ(table.jobs()[static_cast<std::size_t>(jobs[0])].ref.label, "python train.py --rank 0 (olga)");
}

TEST(DiagnoseJobs, SlurmJobGroupsDifferentCommandsAndRememberLeavers) {
  JobTable table;
  table.identify(500, {.command = "python a.py", .slurm_job = "9"});
  table.identify(501, {.command = "python b.py", .slurm_job = "9"});
  auto jobs = jobs_of(table, ranks(1000, {"python", "python"}));
  EXPECT_EQ(jobs[0], jobs[1]);
  const auto& job = table.jobs()[static_cast<std::size_t>(jobs[0])];
  EXPECT_EQ(job.ref.id, "slurm:9");
  // GPU 1's process leaves: the job remembers it ran there (a dead rank is named from this).
  jobs = jobs_of(table, ranks(1005, {"python"}));
  const auto& after = table.jobs()[static_cast<std::size_t>(jobs[0])];
  EXPECT_EQ(after.members, (std::vector<unsigned>{0}));
  EXPECT_EQ(after.last_member_s.at(1), 1000 + kEpochS);
}

TEST(DiagnoseJobs, NoProcessNoJob) {
  JobTable table;
  std::map<unsigned, GpuState> gpus;
  auto s = make_snapshot(1000, GpuValues{.util = 0.0, .power_w = 70});
  extract(s.devices.front(), 1000, gpus[0].sample);
  table.assign(gpus, 1000);
  EXPECT_EQ(gpus[0].job, -1);
  EXPECT_TRUE(table.jobs().empty());
}

}  // namespace jobs_test
}  // namespace gpuwatch::diagnose::testing
