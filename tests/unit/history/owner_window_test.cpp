// history/owner_window.hpp: an owner's window from the database, the errors a person can act on,
// and the findings on its GPUs.
#include "history/owner_window.hpp"

#include <gtest/gtest.h>

#include "unit/store/store_fixture.hpp"

namespace gpuwatch::history {
namespace {

store::OwnerSpanRow pod_span(unsigned gpu, std::uint32_t pid, const std::string& ns) {
  store::OwnerSpanRow row;
  row.gpu_key = row.gpu_uuid.emplace("GPU-" + std::to_string(gpu));
  row.gpu_index = gpu;
  row.pid = pid;
  row.first_ms = 1000;
  row.last_ms = 2000;
  row.owner.pod_name = "trainer-0";
  row.owner.pod_namespace = ns;
  return row;
}

TEST(OwnerWindow, FindsAnOwnerAndSaysWhatIsWrongOtherwise) {
  store::testing::TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(store::write_owner_spans(**db, {pod_span(0, 10, "ml"), pod_span(1, 11, "dev")}));
  auto ml = find_owner_window(**db, *store::pod_filter("ml/trainer-0"), "h.db");
  ASSERT_TRUE(ml) << ml.error().message;
  EXPECT_EQ(ml->gpus.size(), 1U);
  EXPECT_EQ(owner_window_line(*ml).substr(0, 41), "pod ml/trainer-0: GPU 0 (1 process) from ");

  auto ambiguous = find_owner_window(**db, *store::pod_filter("trainer-0"), "h.db");
  ASSERT_FALSE(ambiguous);
  EXPECT_EQ(ambiguous.error().message, "pod trainer-0 is in several namespaces (dev, ml): give NAMESPACE/trainer-0");

  auto missing = find_owner_window(**db, *store::slurm_job_filter("7"), "h.db");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message.rfind("no process of Slurm job 7 in h.db (", 0), 0U) << missing.error().message;
}

TEST(OwnerWindow, KeepsTheFindingsOnTheOwnersGpus) {
  store::OwnerWindow w;
  w.gpus = {{std::string("GPU-1"), 1}};
  diagnose::Finding on_it, elsewhere, across;
  on_it.gpus = {1};
  on_it.uuids = {"GPU-1"};
  elsewhere.gpus = {2};
  elsewhere.uuids = {"GPU-2"};
  across.gpus = {0, 1};
  across.uuids = {"GPU-0", "GPU-1"};
  on_it.kind = "a";
  elsewhere.kind = "b";
  across.kind = "c";
  std::vector<diagnose::Finding> findings = {on_it, elsewhere, across};
  keep_findings_of(findings, w);
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].kind, "a");
  EXPECT_EQ(findings[1].kind, "c");
}

}  // namespace
}  // namespace gpuwatch::history
