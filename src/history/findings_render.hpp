#pragma once
// `gpuwatch history --findings` (issue 10): the findings of the selected window instead of
// its samples. Pure functions over diagnose::Finding (history/findings.hpp diagnoses the window).
// One row per problem (history::diagnose_recorded groups the findings: issue 23), with how
// many episodes it had; the JSON formats carry each one's `episodes` array.
//   table: start, end, gpu, severity, kind, episodes, summary (aligned; "No findings ..." when none);
//   csv:   the same columns, header always;
//   json:  {"findings": [...]} as `gpuwatch diagnose --json` (docs/diagnose.md);
//   jsonl: one finding object per line.
// Rows in time order (start, then GPU, then kind).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::history {

enum class FindingsFormat { Table, Csv, Json, Jsonl };
core::Result<FindingsFormat> parse_findings_format(const std::string& text);

// Only the findings that involve the GPU with this index or UUID (both nullopt: all of them).
std::vector<diagnose::Finding> findings_involving(std::span<const diagnose::Finding> findings,
                                                  const std::optional<unsigned>& gpu_index,
                                                  const std::optional<std::string>& gpu_uuid);

// FINDINGS in FORMAT. NONE_NOTE: the table's line when there are none (e.g. "No findings in
// 360 samples"); other formats print nothing for none but their frame (csv header, json {}).
std::string render_findings(std::span<const diagnose::Finding> findings, FindingsFormat format,
                            const std::string& none_note = "No findings");

}  // namespace gpuwatch::history
