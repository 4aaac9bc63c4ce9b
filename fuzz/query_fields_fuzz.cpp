// libFuzzer target: `gpuwatch query` options (query/options.cpp) and nvidia-smi's cell text
// (core/field_format.cpp). The input's first line is a --query-gpu field list, the second a
// --query-compute-apps list, the third a --format value; the bytes after them are readings,
// formatted in every parsed field's display (as a CSV cell, with and without units).
// Promises checked beyond "no crash": a parsed field list is never empty and each name found
// maps back to its own field; a format is csv, json, jsonl or md.
#include <fuzzer/FuzzedDataProvider.h>

#include <string>
#include <vector>

#include "core/field_format.hpp"
#include "core/field_table.hpp"
#include "fuzz/fuzz_check.hpp"
#include "query/options.hpp"

namespace {

using namespace gpuwatch;

std::string_view next_line(std::string_view& input) {
  const auto end = input.find('\n');
  const std::string_view line = input.substr(0, end);
  input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
  return line;
}

core::FieldValue reading(FuzzedDataProvider& bytes) {
  switch (bytes.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: return bytes.ConsumeIntegral<std::int64_t>();
    case 1: return bytes.ConsumeIntegral<std::uint64_t>();
    case 2: return bytes.ConsumeFloatingPoint<double>();
    case 3: return bytes.ConsumeBool();
    default: return bytes.ConsumeRandomLengthString(64);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = fuzz::as_text(data, size);
  const std::string gpu_list(next_line(input));
  const std::string app_list(next_line(input));
  const std::string format_text(next_line(input));

  auto gpu_fields = query::parse_gpu_fields(gpu_list);
  if (gpu_fields) {
    GPUWATCH_FUZZ_CHECK(!gpu_fields->empty(), "a parsed field list has a field");
    for (core::FieldId id : *gpu_fields) {
      const auto& info = core::field_info(id);
      GPUWATCH_FUZZ_CHECK(core::find_field(info.name) == id, "a field's own name finds it");
      (void)info.csv_header();
    }
  } else {
    GPUWATCH_FUZZ_CHECK(!gpu_fields.error().message.empty(), "an error says what is wrong");
  }
  auto app_fields = query::parse_app_fields(app_list);
  if (app_fields) GPUWATCH_FUZZ_CHECK(!app_fields->empty(), "a parsed field list has a field");

  auto format = query::parse_query_format(format_text);
  if (format) {
    GPUWATCH_FUZZ_CHECK(format->output == query::QueryOutput::Csv || format->output == query::QueryOutput::Json ||
                            format->output == query::QueryOutput::Jsonl || format->output == query::QueryOutput::Markdown,
                        "a known output kind");
  }

  if (!gpu_fields) return 0;
  FuzzedDataProvider bytes(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  for (core::FieldId id : *gpu_fields) {
    if (bytes.remaining_bytes() == 0) break;
    const auto& info = core::field_info(id);
    const core::FieldValue value = reading(bytes);
    (void)core::format_value(info.display, value, true);
    (void)core::format_value(info.display, value, false);
  }
  return 0;
}
