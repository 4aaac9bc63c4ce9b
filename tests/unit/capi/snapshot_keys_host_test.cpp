// flatten_host (capi/snapshot_keys.hpp): the host keys of the C ABI's flat sample (issue 25).
#include <gtest/gtest.h>

#include "capi/snapshot_keys.hpp"

namespace gpuwatch::capi {
namespace snapshot_keys_host_test {  // this test file's helpers (unity builds)

TEST(HostKeys, PresentHostValuesAndTheJobsTreeAreKeysAbsentOnesAreNot) {
  host_signals::HostSample host;
  host.cpu_busy_percent = 97.0;
  host.io_pressure_some_percent = 0.0;  // a real zero stays
  host.memory_total_bytes = 1024;
  host.process_trees = {{42, 7.5, 8}, {43, std::nullopt, 1}};
  const FlatEntries expected = {{"host/cpu_busy_percent", 97.0},
                                {"host/memory_total_bytes", 1024.0},
                                {"host/io_pressure_some_percent", 0.0},
                                {"host/job_cpu_cores", 7.5},
                                {"host/job_processes", 9.0}};
  EXPECT_EQ(flatten_host(host), expected);  // in host_fields() order; no cpu_iowait_percent: absent
}

TEST(HostKeys, AFirstReadingHasNoJobCpuYet) {
  host_signals::HostSample host;
  host.process_trees = {{42, std::nullopt, 3}};
  const FlatEntries expected = {{"host/job_processes", 3.0}};
  EXPECT_EQ(flatten_host(host), expected);
}

}  // namespace snapshot_keys_host_test
}  // namespace gpuwatch::capi
