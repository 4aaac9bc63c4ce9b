#include "alerts/template.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::alerts {
namespace template_test {  // this test file's helpers (unity builds: no clash with another file's)

std::string render(const std::string& text, std::optional<double> value, const Labels& labels = {},
                   std::string_view process = "") {
  auto t = Template::parse(text);
  if (auto* e = std::get_if<Template::ParseError>(&t)) return "ERROR " + e->message;
  return std::get<Template>(t).render(TemplateData{value, &labels, process});
}

std::string error_of(const std::string& text) {
  auto t = Template::parse(text);
  auto* e = std::get_if<Template::ParseError>(&t);
  return e ? std::to_string(e->column) + ": " + e->message : "";
}

TEST(AlertsTemplate, VariablesAndLabels) {
  Labels l = {{"gpu", "3"}, {"host", "n1"}, {"instance", "n1"}, {"uuid", "GPU-a"}};
  EXPECT_EQ(render("GPU {{ $labels.gpu }} on {{ $labels.instance }} is at {{ $value }} °C", 91, l),
            "GPU 3 on n1 is at 91 °C");
  EXPECT_EQ(render("{{$labels.uuid}}/{{ $labels.host }}", 1, l), "GPU-a/n1");
  EXPECT_EQ(render("{{ $labels.missing }}", 1, l), "<no value>");
  EXPECT_EQ(render("{{ $value }}", std::nullopt, l), "<no value>");
  EXPECT_EQ(render("runs {{ $process }}", 1, l, "python train.py"), "runs python train.py");
  EXPECT_EQ(render("no action", 1, l), "no action");
}

TEST(AlertsTemplate, FunctionsAsPipesAndCalls) {
  EXPECT_EQ(render("{{ $value | humanizePercentage }}", 0.05), "5%");
  EXPECT_EQ(render("{{ $value | humanizeDuration }}", 60), "1m 0s");
  EXPECT_EQ(render("{{ humanizeDuration $value }}", 3725), "1h 2m 5s");
  EXPECT_EQ(render("{{ $value | humanize }}", 1234567), "1.235M");
  EXPECT_EQ(render("{{ $value | printf \"%.1f\" }}", 85.26), "85.3");
  EXPECT_EQ(render("{{ printf \"%.2f%%\" $value }}", 12.345), "12.35%");
}

TEST(AlertsTemplate, GoFormatting) {
  EXPECT_EQ(format_go_float(91), "91");
  EXPECT_EQ(format_go_float(0.05), "0.05");
  EXPECT_EQ(format_go_float(123456), "123456");
  EXPECT_EQ(format_go_float(1234567), "1.234567e+06");
  EXPECT_EQ(format_go_float(0.00001), "1e-05");
  EXPECT_EQ(format_go_float(-2.5), "-2.5");
  EXPECT_EQ(humanize(0.012), "12m");
  EXPECT_EQ(humanize(0), "0");
  EXPECT_EQ(humanize_duration(0.5), "500ms");
  EXPECT_EQ(humanize_duration(90061), "1d 1h 1m 1s");
  EXPECT_EQ(humanize_duration(12.5), "12.5s");
}

TEST(AlertsTemplate, SyntaxErrorsNameTheProblem) {
  EXPECT_EQ(error_of("GPU {{ $labels.gpu"), "5: '{{' without its '}}'");
  EXPECT_NE(error_of("{{ $valeu }}").find("unknown variable '$valeu'"), std::string::npos);
  EXPECT_NE(error_of("{{ $valeu }}").find("Did you mean '$value'"), std::string::npos);
  EXPECT_NE(error_of("{{ $value | humanise }}").find("unknown function 'humanise'"), std::string::npos);
  EXPECT_NE(error_of("{{ $value | humanise }}").find("humanize"), std::string::npos);
  EXPECT_NE(error_of("{{ $value | printf \"%s\" }}").find("printf needs a quoted format"), std::string::npos);
  EXPECT_NE(error_of("{{ $value humanize }}").find("expected '| FUNCTION'"), std::string::npos);
  EXPECT_EQ(error_of("{{ $process }} {{ $value | humanizeDuration }}"), "");
}

}  // namespace template_test
}  // namespace gpuwatch::alerts

namespace gpuwatch::alerts {
namespace template_raw_test {

Template parsed(const std::string& text) { return std::get<Template>(Template::parse(text)); }

TEST(AlertsTemplate, RawIsAnExplicitOptInPerValue) {
  Labels l = {{"runbook", "https://runbook.example/gpu"}};
  const std::string process = "<!channel> [x](https://evil.example)";
  const Template plain = parsed("on {{ $process }}");
  EXPECT_FALSE(plain.uses_raw());
  const Template raw = parsed("<{{ $labels.runbook | raw }}|runbook> on {{ $process }}");
  EXPECT_TRUE(raw.uses_raw());
  EXPECT_TRUE(parsed("{{ raw $labels.runbook }}").uses_raw());  // the call form
  // The text itself is the same either way: raw only marks the pieces.
  EXPECT_EQ(raw.render(TemplateData{1, &l, process}),
            "<https://runbook.example/gpu|runbook> on <!channel> [x](https://evil.example)");
  const auto spans = raw.render_spans(TemplateData{1, &l, process});
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0], (TextSpan{"<https://runbook.example/gpu|runbook> on ", true}));
  EXPECT_EQ(spans[1], (TextSpan{process, false}));  // the process stays encoded for the channel
}

TEST(AlertsTemplate, RawTakesNoArgumentAndIsSuggested) {
  auto t = Template::parse("{{ $process | raww }}");
  auto* e = std::get_if<Template::ParseError>(&t);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("raw"), std::string::npos);
  EXPECT_NE(std::get_if<Template::ParseError>(&(t = Template::parse("{{ $process | raw \"x\" }}"))), nullptr);
}

}  // namespace template_raw_test
}  // namespace gpuwatch::alerts
