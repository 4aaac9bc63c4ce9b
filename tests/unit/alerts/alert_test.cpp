#include "alerts/alert.hpp"
#include "alerts/alert_json.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::alerts {
namespace {

TEST(AlertsAlert, NamesRoundTrip) {
  for (auto s : {Severity::Info, Severity::Warning, Severity::Critical}) EXPECT_EQ(severity_from_string(to_string(s)), s);
  for (auto s : {AlertState::Pending, AlertState::Firing, AlertState::Resolved})
    EXPECT_EQ(alert_state_from_string(to_string(s)), s);
  EXPECT_FALSE(severity_from_string("error"));
  EXPECT_FALSE(alert_state_from_string("inactive"));
  EXPECT_STREQ(to_string(EventKind::Repeat), "repeat");
  EXPECT_STREQ(to_string(Severity::Critical), "critical");
}

TEST(AlertsAlert, FingerprintIsStableFnv1aOfTheSortedLabels) {
  Alert a;
  a.labels = {{"alertname", "GpuTemperatureHigh"}, {"gpu", "0"}, {"host", "n1"}, {"severity", "warning"}};
  // FNV-1a 64 over name 0xff value 0xff ..., computed independently (Python).
  EXPECT_EQ(a.fingerprint(), "94b90a58afa855ee");
  EXPECT_EQ(a.fingerprint().size(), 16u);
  Alert b = a;
  b.value = 99;             // not identity
  b.state = AlertState::Firing;
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  b.labels["gpu"] = "1";
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  // Label boundaries matter: {"ab": "c"} is not {"a": "bc"}.
  Alert c, d;
  c.labels = {{"ab", "c"}};
  d.labels = {{"a", "bc"}};
  EXPECT_NE(c.fingerprint(), d.fingerprint());
}

}  // namespace
}  // namespace gpuwatch::alerts

namespace gpuwatch::alerts {
namespace alert_raw_spans_test {

TEST(AlertsAlert, RawAnnotationPiecesRoundTripThroughJsonOnlyWhenPresent) {
  Alert alert;
  alert.rule = "GpuHot";
  alert.annotations = {{"summary", "<https://r|runbook> on x"}};
  EXPECT_FALSE(to_json(alert).contains("raw_annotations"));  // the usual JSON is unchanged
  alert.raw_annotations = {{"summary", {{"<https://r|runbook> on ", true}, {"x", false}}}};
  const auto json = to_json(alert);
  ASSERT_TRUE(json.contains("raw_annotations"));
  auto back = alert_from_json(json);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->raw_annotations, alert.raw_annotations);
}

}  // namespace alert_raw_spans_test
}  // namespace gpuwatch::alerts
