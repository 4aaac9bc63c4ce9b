#include "exporter/energy_metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "exporter/prometheus_encoder.hpp"
#include "live/energy_integrator.hpp"

namespace gpuwatch::exporter {
namespace energy_metrics_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

core::DeviceSnapshot gpu(unsigned index) {
  core::DeviceSnapshot d;
  d.index = index;
  d.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-") + std::to_string(index));
  return d;
}

live::DeviceStatus up_with_estimate(std::optional<double> joules) {
  live::DeviceStatus s{true, true, 0.1, 0.001};
  s.estimated_energy_joules = joules;
  return s;
}

std::string encode_energy(const core::Snapshot& snap, const std::vector<live::DeviceStatus>& status) {
  live::LiveView view;
  view.snapshot = &snap;
  view.status = status;
  std::vector<std::string> labels;
  for (const auto& d : snap.devices) labels.push_back("gpu=\"" + std::to_string(d.index) + "\"");
  std::string out;
  encode_energy_native(view, labels, out);
  return out;
}

// The sample lines only (no HELP/TYPE).
std::string samples_of(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line[0] != '#') out += line + "\n";
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

TEST(EnergyMetrics, CounterPreferredEstimateOnlyWithoutOne) {
  core::Snapshot snap;
  snap.devices = {gpu(0), gpu(1), gpu(2), gpu(3)};
  snap.devices[0].get(FieldId::EnergyTotal) = FieldReading::of(352176.5);  // counter and an estimate: counter
  snap.devices[1].get(FieldId::EnergyTotal) = FieldReading::absent(FieldStatus::NotSupported);
  snap.devices[2].get(FieldId::EnergyTotal) = FieldReading::absent(FieldStatus::Failed);  // has one, read failed
  snap.devices[3].get(FieldId::EnergyTotal) = FieldReading::absent(FieldStatus::FunctionMissing);
  std::string text = encode_energy(snap, {up_with_estimate(12.5), up_with_estimate(1000.25), up_with_estimate(7.0),
                                          up_with_estimate(std::nullopt)});
  EXPECT_EQ(samples_of(text),
            "gpuwatch_energy_joules_total{gpu=\"0\",source=\"counter\"} 352176.5\n"
            "gpuwatch_energy_joules_total{gpu=\"1\",source=\"estimated\"} 1000.25\n");
  EXPECT_NE(text.find("# TYPE gpuwatch_energy_joules_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("since the driver was loaded"), std::string::npos);
  EXPECT_NE(text.find("not across gaps"), std::string::npos);
}

TEST(EnergyMetrics, AbsentStaysAbsent) {
  core::Snapshot snap;
  snap.devices = {gpu(0)};
  snap.devices[0].get(FieldId::EnergyTotal) = FieldReading::absent(FieldStatus::NotSupported);
  EXPECT_EQ(encode_energy(snap, {up_with_estimate(std::nullopt)}), "");  // no family at all, no 0
}

TEST(EnergyMetrics, GpuNotUpHasNoSeries) {
  core::Snapshot snap;
  snap.devices = {gpu(0), gpu(1)};
  snap.devices[0].get(FieldId::EnergyTotal) = FieldReading::of(std::uint64_t{5000});
  snap.devices[1].get(FieldId::EnergyTotal) = FieldReading::absent(FieldStatus::NotSupported);
  auto down0 = up_with_estimate(std::nullopt);
  down0.up = false;
  auto down1 = up_with_estimate(40.0);
  down1.up = false;
  EXPECT_EQ(encode_energy(snap, {down0, down1}), "");
}

TEST(EnergyMetrics, WholeEncoderWritesTheFamilyOnce) {
  core::Snapshot snap;
  snap.device_count = 2;
  snap.devices = {gpu(0), gpu(1)};
  snap.devices[0].get(FieldId::EnergyTotal) = FieldReading::of(std::uint64_t{5000});
  snap.devices[1].get(FieldId::EnergyTotal) = FieldReading::absent(FieldStatus::NotSupported);
  live::LiveView view;
  view.snapshot = &snap;
  view.status = {up_with_estimate(1.0), up_with_estimate(2.5)};
  std::string text = encode_prometheus(view, EncodeOptions{});
  const std::string type = "# TYPE gpuwatch_energy_joules_total counter\n";
  auto at = text.find(type);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(text.find(type, at + 1), std::string::npos);
  EXPECT_NE(text.find("gpuwatch_energy_joules_total{gpu=\"0\",uuid=\"GPU-0\",vendor=\"nvidia\",source=\"counter\"} 5000\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpuwatch_energy_joules_total{gpu=\"1\",uuid=\"GPU-1\",vendor=\"nvidia\",source=\"estimated\"} 2.5\n"),
            std::string::npos);
}

// The estimate agrees with a counter that accumulates the true energy: a varying load (200 W +/-
// 150 W, 30 s period) sampled every second for 5 minutes, compared over the window.
TEST(EnergyMetrics, EstimateAgreesWithCounterWithinOnePercent) {
  const double pi = std::acos(-1.0);
  auto watts = [&](double t) { return 200.0 + 150.0 * std::sin(2 * pi * t / 30.0) + 40.0 * std::sin(2 * pi * t / 7.0); };
  auto true_joules = [&](double t) {  // the integral of watts from 0 to t
    return 200.0 * t + 150.0 * 30.0 / (2 * pi) * (1 - std::cos(2 * pi * t / 30.0)) +
           40.0 * 7.0 / (2 * pi) * (1 - std::cos(2 * pi * t / 7.0));
  };
  live::EnergyIntegrator integrator(std::chrono::seconds(5));
  const auto start = live::EnergyIntegrator::Clock::time_point{} + std::chrono::hours(2);
  const double counter_at_start = 352176.0;  // the driver's counter did not start with gpuwatch
  std::optional<double> estimate_at_10s;
  for (int i = 0; i <= 300; ++i) {
    integrator.add(start + std::chrono::seconds(i), watts(i));
    if (i == 10) estimate_at_10s = integrator.joules();
  }
  const double counter_increase = (counter_at_start + true_joules(300)) - (counter_at_start + true_joules(10));
  const double estimate_increase = *integrator.joules() - *estimate_at_10s;
  EXPECT_NEAR(estimate_increase, counter_increase, 0.01 * counter_increase);
}

}  // namespace energy_metrics_test
}  // namespace gpuwatch::exporter
