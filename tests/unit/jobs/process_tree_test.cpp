#include "jobs/process_tree.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <map>

namespace gpuwatch::jobs {
namespace {

// 100 is the command; 101 its child, 102 a worker 101 forked; 200 an unrelated process.
ParentOf links(std::map<std::uint32_t, std::uint32_t>& parents) {
  return [&parents](std::uint32_t pid) -> std::optional<std::uint32_t> {
    auto it = parents.find(pid);
    if (it == parents.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ProcessTree, DescendantsBelongAndOthersDoNot) {
  std::map<std::uint32_t, std::uint32_t> parents = {{100, 50}, {101, 100}, {102, 101}, {200, 1}, {50, 1}};
  ProcessTree tree({100}, links(parents));
  EXPECT_TRUE(tree.contains(100));
  EXPECT_TRUE(tree.contains(102));
  EXPECT_FALSE(tree.contains(200));
  EXPECT_FALSE(tree.contains(50));  // the command's parent is not the job
  EXPECT_FALSE(tree.contains(999)); // gone
}

TEST(ProcessTree, AMemberStaysOneWhenItsParentExits) {
  std::map<std::uint32_t, std::uint32_t> parents = {{100, 50}, {101, 100}, {102, 101}};
  ProcessTree tree({100}, links(parents));
  ASSERT_TRUE(tree.contains(102));
  parents[102] = 1;  // 101 exited; re-parented to init (no subreaper)
  parents.erase(101);
  EXPECT_TRUE(tree.contains(102));
}

TEST(ProcessTree, OrphansReparentedToTheSubreaperBelong) {
  std::map<std::uint32_t, std::uint32_t> parents = {{100, 40}, {103, 40}};  // 40: gpuwatch, the subreaper
  ProcessTree tree({100, 40}, links(parents));
  EXPECT_TRUE(tree.contains(103));
}

TEST(ProcessTree, ALoopInTheLinksEnds) {
  std::map<std::uint32_t, std::uint32_t> parents = {{300, 301}, {301, 300}};
  ProcessTree tree({100}, links(parents));
  EXPECT_FALSE(tree.contains(300));
}

TEST(ProcessTree, ParentFromStatHandlesParenthesesInTheName) {
  EXPECT_EQ(parent_pid_from_stat("4242 (python) S 4200 4242 4242 0 -1"), 4200u);
  EXPECT_EQ(parent_pid_from_stat("4242 (a b) c) R 17 1 1"), 17u);
  EXPECT_EQ(parent_pid_from_stat("garbage"), std::nullopt);
}

TEST(ProcessTree, ReadsThisProcesssParentFromProc) {
  EXPECT_EQ(read_parent_pid(static_cast<std::uint32_t>(::getpid())), static_cast<std::uint32_t>(::getppid()));
}

}  // namespace
}  // namespace gpuwatch::jobs

namespace gpuwatch::jobs {
namespace {

TEST(ProcessTree, ExcludedChildrenOfTheSubreaperAreNotTheJobs) {
  // 40: gpuwatch (subreaper, a root); 41: a stand-in it started before the job; 42: its child.
  std::map<std::uint32_t, std::uint32_t> parents = {{100, 40}, {41, 40}, {42, 41}, {103, 40}};
  ProcessTree tree({100, 40}, links(parents), {41});
  EXPECT_FALSE(tree.contains(41));
  EXPECT_FALSE(tree.contains(42));
  EXPECT_TRUE(tree.contains(103));  // an orphan of the job, re-parented to gpuwatch
}

TEST(ProcessTree, ReadChildrenFindsAForkedChild) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  auto children = read_children(static_cast<std::uint32_t>(getpid()));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(children.count(static_cast<std::uint32_t>(child)), 1u);
}

}  // namespace
}  // namespace gpuwatch::jobs
