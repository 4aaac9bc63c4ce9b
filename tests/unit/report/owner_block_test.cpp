// `report --slurm-job` / `--pod` (report/owner_block.hpp): the owner's block, and the report
// narrowed to the GPUs and processes the owner held.
#include "report/owner_block.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::report {
namespace owner_block_test {  // this test file's helpers (unity builds: no clash with another file's)

store::OwnerWindow job_window() {
  store::OwnerWindow w;
  w.kind = "slurm_job";
  w.title = "Slurm job 4821";
  w.first_ms = 1'700'000'000'000;
  w.last_ms = 1'700'000'060'000;
  w.gpus = {{std::string("GPU-a"), 0}, {std::string("GPU-b"), 1}};
  w.processes = {{std::string("GPU-a"), 0, 4001}, {std::string("GPU-b"), 1, 4002}};
  w.users = {"alice"};
  w.steps = {"0", "batch"};
  return w;
}

store::GpuSummary gpu(unsigned index, const std::string& uuid) {
  store::GpuSummary g;
  g.gpu.index = index;
  g.gpu.uuid = uuid;
  return g;
}

store::ProcessSummary process(unsigned index, const std::string& uuid, std::uint32_t pid) {
  store::ProcessSummary p;
  p.gpu_index = index;
  p.gpu_uuid = uuid;
  p.pid = pid;
  return p;
}

TEST(OwnerBlock, NarrowsTheReportToTheOwnersGpusAndProcesses) {
  store::HistoryReport report;
  report.gpus = {gpu(0, "GPU-a"), gpu(1, "GPU-b"), gpu(2, "GPU-c")};
  // GPU-b's index moved to 3 since (a reboot): the UUID decides. PID 9 ran on the job's GPU but is not the job's.
  report.gpus[1].gpu.index = 3;
  report.processes = {process(0, "GPU-a", 4001), process(0, "GPU-a", 9), process(3, "GPU-b", 4002),
                      process(2, "GPU-c", 4003)};
  restrict_to_owner(report, job_window());
  ASSERT_EQ(report.gpus.size(), 2U);
  EXPECT_EQ(report.gpus[0].gpu.uuid, "GPU-a");
  EXPECT_EQ(report.gpus[1].gpu.uuid, "GPU-b");
  ASSERT_EQ(report.processes.size(), 2U);
  EXPECT_EQ(report.processes[0].pid, 4001U);
  EXPECT_EQ(report.processes[1].pid, 4002U);
  ASSERT_TRUE(report.owner);
  EXPECT_EQ(report.owner->title, "Slurm job 4821");
}

TEST(OwnerBlock, TextJsonAndHtmlSayWhoAndWhen) {
  const auto w = job_window();
  const std::string text = owner_block_text(w, TimeStyle{.utc = true});
  EXPECT_EQ(text.substr(0, text.find('\n')), "Slurm job 4821 (user alice; steps 0, batch): GPUs 0, 1 (2 processes)");
  EXPECT_NE(text.find("2023-11-14 22:13:20"), std::string::npos) << text;
  EXPECT_NE(text.find("UTC"), std::string::npos) << text;
  auto j = owner_block_json(w);
  EXPECT_EQ(j["kind"], "slurm_job");
  EXPECT_EQ(j["first_ms"], w.first_ms);
  EXPECT_EQ(j["gpus"][1]["uuid"], "GPU-b");
  EXPECT_EQ(j["processes"][0]["pid"], 4001);
  EXPECT_EQ(j["namespaces"], nlohmann::ordered_json::array());
  store::OwnerWindow no_uuid = w;
  no_uuid.gpus[0].uuid.reset();
  EXPECT_TRUE(owner_block_json(no_uuid)["gpus"][0]["uuid"].is_null());  // absent, not ""
  const std::string html = owner_block_html(w, TimeStyle{.utc = true});
  EXPECT_NE(html.find("<h2>Slurm job 4821 (user alice; steps 0, batch)"), std::string::npos) << html;
  EXPECT_NE(html.find(R"({"end_ms":1700000060000,"start_ms":1700000000000})"), std::string::npos) << html;
}

}  // namespace owner_block_test
}  // namespace gpuwatch::report
