#include "pmon/format.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::pmon {
namespace {

// Lines copied from the real `nvidia-smi pmon -c 5` captures in shared/realdata.
TEST(PmonFormat, DefaultHeaderMatchesNvidiaSmi) {
  EXPECT_EQ(pmon_header(PmonOptions{}),
            "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n"
            "# Idx           #    C/G      %      %      %      %      %      %    name \n");
}

TEST(PmonFormat, ComputeAndGraphicsRowWithTruncatedName) {  // RTX 4080 SUPER, load
  PmonRow row;
  row.pid = 2165;
  row.type = core::ProcessType::ComputeAndGraphics;
  row.dec_pct = 0;
  row.command = "kwin_wayland";
  EXPECT_EQ(pmon_row(PmonOptions{}, row),
            "    0       2165   C+G      -      -      -      0      -      -    kwin_wayland   \n");
  row.pid = 3527;
  row.type = core::ProcessType::Graphics;
  row.dec_pct = std::nullopt;
  row.command = "xwaylandvideobridge";
  EXPECT_EQ(pmon_row(PmonOptions{}, row),
            "    0       3527     G      -      -      -      -      -      -    xwaylandvideobr\n");
}

TEST(PmonFormat, ComputeRowWithSamples) {  // H100, load
  PmonRow row;
  row.pid = 11345;
  row.sm_pct = 99;
  row.mem_pct = 10;
  row.command = "gpu_burn";
  EXPECT_EQ(pmon_row(PmonOptions{}, row),
            "    0      11345     C     99     10      -      -      -      -    gpu_burn       \n");
}

TEST(PmonFormat, GpuWithoutProcessesIsOneDashRow) {  // H100, idle
  PmonRow row;
  row.sm_pct = 5;  // ignored: no process
  EXPECT_EQ(pmon_row(PmonOptions{}, row),
            "    0          -     -      -      -      -      -      -      -    -              \n");
}

TEST(PmonFormat, MemoryGroupAddsFbAndCcpm) {
  PmonOptions options;
  ASSERT_TRUE(parse_pmon_select("um", options).has_value());
  EXPECT_EQ(pmon_header(options),
            "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command \n"
            "# Idx           #    C/G      %      %      %      %      %      %     MB     MB    name \n");
  ASSERT_TRUE(parse_pmon_select("m", options).has_value());
  PmonRow row;
  row.gpu = 2;
  row.pid = 4242;
  row.fb_mb = 40960;
  row.command = "python3";
  EXPECT_EQ(pmon_row(options, row), "    2       4242     C  40960      -    python3        \n");
}

TEST(PmonFormat, RejectsUnknownGroup) {
  PmonOptions options;
  EXPECT_FALSE(parse_pmon_select("x", options).has_value());
  EXPECT_FALSE(parse_pmon_select("", options).has_value());
}

// issue 15: --owner adds a column after nvidia-smi's, which stay where they are.
TEST(PmonFormat, OwnerColumnComesLastAndLinesUp) {
  PmonOptions options;
  options.owner = true;
  std::string header = pmon_header(options);
  auto names = header.substr(0, header.find('\n'));
  auto units = header.substr(header.find('\n') + 1);
  EXPECT_EQ(names.rfind(pmon_header(PmonOptions{}).substr(0, 70), 0), 0u);  // nvidia-smi's part unchanged
  PmonRow row;
  row.pid = 11345;
  row.command = "python";
  row.owner = "pod ml/trainer-0";
  std::string line = pmon_row(options, row);
  EXPECT_EQ(line.find("pod ml/"), names.find("owner"));
  EXPECT_EQ(names.find("owner"), units.find("pod/job"));
  row.owner.reset();
  EXPECT_EQ(pmon_row(options, row).substr(names.find("owner")), "-\n");  // none: "-"
  EXPECT_EQ(pmon_row(PmonOptions{}, row).find("-\n"), std::string::npos);  // no column without --owner
}

}  // namespace
}  // namespace gpuwatch::pmon

namespace gpuwatch::pmon {
namespace format_encoding_test {  // issue 31

TEST(PmonFormat, CommandAndOwnerShowControlsVisibly) {
  PmonRow row;
  row.pid = 7;
  row.command = "\x1b]52;c;x\x07";
  row.owner = std::string("job 1\nFORGED");
  PmonOptions options;
  options.owner = true;
  const std::string out = pmon_row(options, row);
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_NE(out.find("\\x1b]52;c;x\\x07"), std::string::npos) << out;
  EXPECT_NE(out.find("job 1\\nFORGED\n"), std::string::npos) << out;
}

}  // namespace format_encoding_test
}  // namespace gpuwatch::pmon
