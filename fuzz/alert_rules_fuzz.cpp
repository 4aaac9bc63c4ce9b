// libFuzzer target: an alert rules file (alerts/rule_parser.cpp, with the expressions and
// annotation templates in it), parsed from the input bytes as `--rules FILE` reads the file.
// An accepted rule's annotations are then rendered with awkward values (NaN, infinities,
// 1e300, a missing value), as a firing alert would render them: rendering cannot fail.
// Promises checked beyond "no crash": every error names the file; an accepted rule has a name
// and something to evaluate (an expression, findings or a PromQL twin); durations are >= 0.
#include <cmath>
#include <limits>
#include <optional>

#include "alerts/rule_parser.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using namespace gpuwatch;

const std::optional<double> kValues[] = {std::nullopt,
                                         0.0,
                                         -0.0,
                                         0.5,
                                         91.0,
                                         -3725.0,
                                         1e-300,
                                         1e300,
                                         -1e300,
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::quiet_NaN()};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto rules = alerts::parse_rules(fuzz::as_text(data, size), "rules.yaml");
  if (!rules) {
    GPUWATCH_FUZZ_CHECK(rules.error().message.rfind("rules.yaml", 0) == 0, "an error names the file first");
    return 0;
  }
  const alerts::Labels labels = {{"gpu", "0"}, {"host", "fuzz"}, {"uuid", "GPU-0"}, {"count", "1e300"}};
  for (const auto& rule : rules->rules) {
    GPUWATCH_FUZZ_CHECK(!rule.alert.empty(), "a rule has a name");
    GPUWATCH_FUZZ_CHECK(rule.expr || rule.is_findings_rule() || !rule.promql.empty(), "a rule has a condition");
    GPUWATCH_FUZZ_CHECK(rule.for_duration.count() >= 0 && rule.keep_firing_for.count() >= 0 && rule.repeat.count() >= 0,
                        "durations are not negative");
    for (const auto& [name, annotation] : rule.annotations) {
      for (const auto& value : kValues) {
        const alerts::TemplateData fired{value, &labels, "python train.py"};
        (void)annotation.render(fired);
      }
    }
  }
  return 0;
}
