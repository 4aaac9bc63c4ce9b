#include "report/job_block.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::report {
namespace job_block_test {  // this test file's helpers (unity builds: no clash with another file's)

store::JobRow job() {
  store::JobRow j;
  j.id = 4;
  j.name = "train";
  j.command = "[\"python\",\"train.py\"]";
  j.user = "alice";
  j.host = "node1";
  j.start_ms = 1'700'000'000'000;
  j.end_ms = 1'700'000'060'000;
  j.exit_status = 0;
  j.gpus = "[{\"index\":2,\"uuid\":\"GPU-2\",\"mig_uuids\":[]}]";
  j.summary = "{\"gpu_hours\":0.0167,\"energy_wh\":5.5,\"energy_source\":\"counter\",\"steps\":{\"data_wait_ratio\":0.41}}";
  return j;
}

TEST(JobBlock, TextTitlesTheReportWithTheJob) {
  auto text = job_block_text(job());
  EXPECT_EQ(text.substr(0, text.find('\n')), "Job 4: train (python train.py) by alice on node1");
  EXPECT_NE(text.find("exit 0"), std::string::npos);
  EXPECT_NE(text.find("5.50 Wh (counter)"), std::string::npos);
  EXPECT_NE(text.find("41 % of step time waiting for data"), std::string::npos);
}

TEST(JobBlock, ASummaryRecordedBeforeTheWordingChangeSaysEstimated) {
  auto j = job();
  j.summary = "{\"gpu_hours\":0.0167,\"energy_wh\":5.5,\"energy_source\":\"integrated_power\"}";
  EXPECT_NE(job_block_text(j).find("5.50 Wh (estimated)"), std::string::npos) << job_block_text(j);
}

TEST(JobBlock, TextHasTheStoredEnergyPerStepWasteCostAndCo2WithSources) {
  auto j = job();
  EXPECT_EQ(job_block_text(j).find("energy per step"), std::string::npos);  // recorded before issue 29: nothing
  j.summary = R"({"gpu_hours":0.0167,"energy_wh":5.5,"energy_source":"counter","energy":{
    "steps":{"joules_per_step":{"median":101.2,"p10":66.1,"p90":108.8,"mean":97}},
    "waste":{"idle_memory_held_share":0.018,"throttled_share":0.214,"finding_active_share":null},
    "cost":0.0003128,"currency":"USD","co2_g":0.9124,
    "sources":["price 0.12 USD/kWh from --price-per-kwh","grid 350 gCO2/kWh from --carbon-intensity"]}})";
  auto text = job_block_text(j);
  EXPECT_NE(text.find("energy per step: median 101 J (p10 66.1, p90 109)"), std::string::npos) << text;
  EXPECT_NE(text.find("energy wasted: 1.8 % idle with memory held, 21.4 % throttled, n/a while a warning"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cost 0.0003128 USD, CO2 0.9124 g (price 0.12 USD/kWh from --price-per-kwh; grid 350 gCO2/kWh from "
                      "--carbon-intensity)"),
            std::string::npos)
      << text;
}

TEST(JobBlock, HtmlCarriesTheBoundariesForTheCharts) {
  auto html = job_block_html(job());
  EXPECT_NE(html.find("id=\"job-boundaries\">{\"end_ms\":1700000060000,\"start_ms\":1700000000000}"), std::string::npos);
  auto running = job();
  running.end_ms.reset();
  EXPECT_NE(job_block_html(running).find("\"end_ms\":null"), std::string::npos);
}

TEST(JobBlock, RestrictKeepsTheJobsGpusOnly) {
  store::HistoryReport report;
  for (const char* uuid : {"GPU-1", "GPU-2"}) {
    store::GpuSummary g;
    g.gpu.uuid = uuid;
    report.gpus.push_back(g);
    store::ProcessSummary p;
    p.gpu_uuid = uuid;
    report.processes.push_back(p);
  }
  restrict_to_job(report, job());
  ASSERT_EQ(report.gpus.size(), 1u);
  EXPECT_EQ(report.gpus[0].gpu.uuid, "GPU-2");
  ASSERT_EQ(report.processes.size(), 1u);
  ASSERT_TRUE(report.job);
  EXPECT_EQ(job_gpus(job()).indices, std::vector<unsigned>{2});
  EXPECT_EQ(job_block_json(job())["exit_status"], 0);
}

}  // namespace job_block_test
}  // namespace gpuwatch::report
