// The owner of each GPU process over time (store/process_owners.hpp, schema 10).
#include "store/process_owners.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_retention.hpp"
#include "store/migrations.hpp"
#include "store_fixture.hpp"

namespace gpuwatch::store {
namespace {

ProcessOwner slurm(const std::string& job, const std::string& step, const std::string& user) {
  ProcessOwner o;
  o.slurm_job = job;
  o.slurm_step = step;
  o.slurm_user = user;
  return o;
}

ProcessOwner pod(const std::string& ns, const std::string& name, const std::string& container) {
  ProcessOwner o;
  o.runtime = "containerd";
  o.container_id = "0123456789abcdef";
  o.pod_uid = "1c6d3b7e-0000-4000-8000-000000000001";
  o.pod_namespace = ns;
  o.pod_name = name;
  o.pod_container = container;
  return o;
}

OwnerSpanRow span(unsigned gpu, std::uint32_t pid, std::int64_t first, std::int64_t last, ProcessOwner owner) {
  const std::string uuid = "GPU-" + std::to_string(gpu);
  return {uuid, uuid, gpu, pid, first, last, std::move(owner)};
}

TEST(ProcessOwners, AnUpsertMovesTheEndOfASpanAndNeverBackwards) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(write_owner_spans(**db, {span(0, 100, 1000, 1000, slurm("42", "0", "alice"))}));
  ASSERT_TRUE(write_owner_spans(**db, {span(0, 100, 1000, 5000, slurm("42", "0", "alice"))}));
  ASSERT_TRUE(write_owner_spans(**db, {span(0, 100, 1000, 3000, slurm("42", "0", "alice"))}));  // a replay
  ASSERT_TRUE(write_owner_spans(**db, {}));
  auto spans = read_owner_spans(**db, *slurm_job_filter("42"));
  ASSERT_TRUE(spans) << spans.error().message;
  ASSERT_EQ(spans->size(), 1U);
  EXPECT_EQ((*spans)[0].first_ms, 1000);
  EXPECT_EQ((*spans)[0].last_ms, 5000);
  EXPECT_EQ((*spans)[0].owner, slurm("42", "0", "alice"));
  EXPECT_FALSE((*spans)[0].owner.pod_name);  // absent stays absent, never ""
}

// Owner rows go with the hour tier (the coarsest history a report can still show for the job),
// never before: a job that ended within it keeps its owner; "keep hourly forever" keeps all.
TEST(ProcessOwners, RetentionDropsOwnersWithTheHourTier) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  constexpr std::int64_t kDayMs = 86'400'000;
  const std::int64_t now = 400 * kDayMs;
  ASSERT_TRUE(write_owner_spans(**db, {span(0, 100, now - 40 * kDayMs, now - 35 * kDayMs, slurm("41", "0", "alice")),
                                       span(1, 200, now - 40 * kDayMs, now - 20 * kDayMs, slurm("42", "0", "bob"))}));
  RetentionPolicy policy;
  policy.hour = std::chrono::hours(0);  // hourly rows kept forever: so are the owners
  auto kept = apply_retention(**db, policy, now);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->owner_rows_deleted, 0);
  policy.hour = std::chrono::hours(24 * 30);
  auto pruned = apply_retention(**db, policy, now);
  ASSERT_TRUE(pruned) << pruned.error().message;
  EXPECT_EQ(pruned->owner_rows_deleted, 1);
  EXPECT_TRUE(read_owner_spans(**db, *slurm_job_filter("41"))->empty());
  EXPECT_EQ(read_owner_spans(**db, *slurm_job_filter("42"))->size(), 1U);
}

// Before the kubelet answers, a pod's processes are known by the pod UID of their cgroup only;
// --pod NAME still finds those rows (and names them) through the UID a later, named row has.
TEST(ProcessOwners, APodSeenByUidBeforeItWasNamedIsFoundByName) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  ProcessOwner unnamed = pod("ml", "trainer-0", "pytorch");
  unnamed.pod_name.reset();
  unnamed.pod_namespace.reset();
  unnamed.pod_container.reset();
  ProcessOwner other = unnamed;
  other.pod_uid = "1c6d3b7e-0000-4000-8000-000000000002";  // another pod, never named
  ASSERT_TRUE(write_owner_spans(**db, {span(0, 100, 1000, 2000, unnamed), span(0, 100, 2000, 9000, pod("ml", "trainer-0", "pytorch")),
                                       span(1, 300, 1000, 9000, other)}));
  for (const char* name : {"trainer-0", "ml/trainer-0"}) {
    auto spans = read_owner_spans(**db, *pod_filter(name));
    ASSERT_TRUE(spans) << spans.error().message;
    ASSERT_EQ(spans->size(), 2U) << name;
    EXPECT_EQ((*spans)[0].first_ms, 1000);
    EXPECT_EQ((*spans)[0].owner.pod_name, "trainer-0");  // named from the later row
    EXPECT_EQ((*spans)[0].owner.pod_namespace, "ml");
    auto window = owner_window(*pod_filter(name), *spans);
    ASSERT_TRUE(window);
    EXPECT_EQ(window->first_ms, 1000);
  }
  EXPECT_TRUE(read_owner_spans(**db, *pod_filter("other/trainer-0"))->empty());
}

TEST(ProcessOwners, ReadsOneJobOrOnePodAndItsWindow) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(write_owner_spans(**db, {span(0, 100, 1000, 9000, slurm("42", "0", "alice")),
                                       span(1, 100, 2000, 8000, slurm("42", "0", "alice")),
                                       span(1, 101, 3000, 4000, slurm("42", "batch", "alice")),
                                       span(2, 200, 500, 20000, slurm("43", "0", "bob")),
                                       span(3, 300, 1500, 2500, pod("ml", "trainer-0", "main")),
                                       span(4, 301, 1700, 2700, pod("dev", "trainer-0", "main"))}));
  auto spans = read_owner_spans(**db, *slurm_job_filter("42"));
  ASSERT_TRUE(spans);
  auto window = owner_window(*slurm_job_filter("42"), *spans);
  ASSERT_TRUE(window);
  EXPECT_EQ(window->kind, "slurm_job");
  EXPECT_EQ(window->title, "Slurm job 42");
  EXPECT_EQ(window->first_ms, 1000);
  EXPECT_EQ(window->last_ms, 9000);
  ASSERT_EQ(window->gpus.size(), 2U);
  EXPECT_EQ(window->gpus[0], (OwnerGpu{"GPU-0", 0}));
  EXPECT_EQ(window->gpus[1], (OwnerGpu{"GPU-1", 1}));
  EXPECT_EQ(window->processes.size(), 3U);
  EXPECT_EQ(window->users, std::vector<std::string>{"alice"});
  EXPECT_EQ(window->steps, (std::vector<std::string>{"0", "batch"}));
  EXPECT_TRUE(window->holds(std::string("GPU-1"), 1));
  EXPECT_FALSE(window->holds(std::string("GPU-2"), 2));  // job 43's GPU
  EXPECT_TRUE(window->ran(std::string("GPU-1"), 1, 101));
  EXPECT_FALSE(window->ran(std::string("GPU-2"), 2, 200));

  // A time range keeps the spans that overlap it.
  auto late = read_owner_spans(**db, *slurm_job_filter("42"), 8500, std::nullopt);
  ASSERT_TRUE(late);
  ASSERT_EQ(late->size(), 1U);
  EXPECT_EQ((*late)[0].gpu_index, 0U);

  // A pod name alone matches it in every namespace; NAMESPACE/NAME only that one.
  auto both = read_owner_spans(**db, *pod_filter("trainer-0"));
  ASSERT_TRUE(both);
  EXPECT_EQ(owner_window(*pod_filter("trainer-0"), *both)->namespaces, (std::vector<std::string>{"dev", "ml"}));
  auto ml = read_owner_spans(**db, *pod_filter("ml/trainer-0"));
  ASSERT_TRUE(ml);
  ASSERT_EQ(ml->size(), 1U);
  auto ml_window = owner_window(*pod_filter("ml/trainer-0"), *ml);
  EXPECT_EQ(ml_window->title, "pod ml/trainer-0");
  EXPECT_EQ(ml_window->containers, std::vector<std::string>{"main"});
  EXPECT_EQ(ml_window->gpus, (std::vector<OwnerGpu>{{"GPU-3", 3}}));

  auto none = read_owner_spans(**db, *slurm_job_filter("7"));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(owner_window(*slurm_job_filter("7"), *none));
}

TEST(ProcessOwners, AFileWithoutTheTableHasNoOwners) {
  testing::TempDir dir;
  const std::string path = dir.file("old.db");
  {
    auto db = HistoryDatabase::open(path);
    ASSERT_TRUE(db);
    (*db)->sql().exec("DROP TABLE process_owners");  // as a file written before schema 10
    (*db)->sql().exec("DROP TABLE process_commands");  // (and 11)
    (*db)->sql().exec("PRAGMA user_version = 9");
  }
  auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  auto spans = read_owner_spans(**reader, *slurm_job_filter("42"));
  ASSERT_TRUE(spans) << spans.error().message;
  EXPECT_TRUE(spans->empty());
  auto writer = HistoryDatabase::open(path);  // the next recorder adds the table
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_TRUE(write_owner_spans(**writer, {span(0, 1, 1, 2, slurm("42", "0", "alice"))}));
}

TEST(ProcessOwners, FiltersNameTheOptionAndTheProblem) {
  EXPECT_EQ(slurm_job_filter("1234_7")->slurm_job, "1234_7");
  EXPECT_EQ(describe(*slurm_job_filter("1234")), "Slurm job 1234");
  auto plain = pod_filter("trainer-0");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->pod_name, "trainer-0");
  EXPECT_FALSE(plain->pod_namespace);
  EXPECT_EQ(describe(*plain), "pod trainer-0");
  auto qualified = pod_filter("ml/trainer-0");
  ASSERT_TRUE(qualified);
  EXPECT_EQ(qualified->pod_namespace, "ml");
  EXPECT_EQ(qualified->pod_name, "trainer-0");
  for (const char* bad : {"", "/x", "x/", "a/b/c", "two words"}) {
    auto parsed = pod_filter(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("--pod"), std::string::npos) << parsed.error().message;
  }
  auto empty = slurm_job_filter("");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("--slurm-job"), std::string::npos);
  EXPECT_FALSE(slurm_job_filter("12\n34"));
}

TEST(ProcessOwners, AProcessOwnerWithNoValueIsEmpty) {
  EXPECT_TRUE(ProcessOwner{}.empty());
  EXPECT_FALSE(slurm("1", "0", "a").empty());
  ProcessOwner only_container;
  only_container.container_id = "abc";
  EXPECT_FALSE(only_container.empty());
}

}  // namespace
}  // namespace gpuwatch::store
