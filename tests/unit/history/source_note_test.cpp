#include "history/source_note.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::history {
namespace {

store::Provenance simulated(std::vector<std::string> scenarios, bool real = false) {
  store::Provenance p;
  p.known = true;
  p.simulated = true;
  p.real = real;
  p.scenarios = std::move(scenarios);
  return p;
}

// issue 9: history must say when its rows came from the simulated driver.
TEST(HistorySourceNote, TheTableStartsWithItCsvAndJsonlSayItOnStderr) {
  const auto table = source_note(simulated({"demo"}), HistoryFormat::Table);
  EXPECT_TRUE(table.on_stdout);
  EXPECT_EQ(table.text, "# simulated data (scenario demo): recorded on gpuwatch's simulated driver, not a real GPU\n");
  for (auto format : {HistoryFormat::Csv, HistoryFormat::Jsonl}) {
    const auto note = source_note(simulated({"demo"}), format);
    EXPECT_FALSE(note.on_stdout);
    EXPECT_EQ(note.text.rfind("gpuwatch history: simulated data (scenario demo)", 0), 0u) << note.text;
  }
}

TEST(HistorySourceNote, MixedDataNamesEveryScenarioAndRealDataNeedsNoNote) {
  const auto mixed = source_note(simulated({"demo", "idle"}, true), HistoryFormat::Table);
  EXPECT_EQ(mixed.text, "# mixed data: real GPUs and gpuwatch's simulated driver (scenarios demo, idle) in this range\n");
  store::Provenance real;
  real.known = real.real = true;
  EXPECT_EQ(source_note(real, HistoryFormat::Table).text, "");
  EXPECT_EQ(source_note(store::Provenance{}, HistoryFormat::Csv).text, "");  // before schema 4: not known
}

}  // namespace
}  // namespace gpuwatch::history
