#include "history/findings_render.hpp"
#include "core/json_text.hpp"

#include "terminal/text_table.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "core/time_spec.hpp"
#include "diagnose/finding_json.hpp"

namespace gpuwatch::history {
namespace {

std::string gpus_cell(const std::vector<unsigned>& gpus) {
  if (gpus.empty()) return "-";
  std::string out;
  for (std::size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
  return out;
}

std::vector<std::string> row_of(const diagnose::Finding& f) {
  // episodes: how many times the problem came and went in the window (grouped findings, issue 23).
  return {core::format_iso8601(f.start), core::format_iso8601(f.end), gpus_cell(f.gpus),
          diagnose::to_string(f.severity), f.kind, std::to_string(std::max<std::size_t>(1, f.episodes.size())),
          f.summary.empty() ? f.kind : f.summary};
}

const std::vector<std::string> kHeader = {"start", "end", "gpu", "severity", "kind", "episodes", "summary"};

// Every column padded to its widest cell (the last one not padded).
}  // namespace

core::Result<FindingsFormat> parse_findings_format(const std::string& text) {
  if (text == "table") return FindingsFormat::Table;
  if (text == "csv") return FindingsFormat::Csv;
  if (text == "json") return FindingsFormat::Json;
  if (text == "jsonl") return FindingsFormat::Jsonl;
  return core::make_error("--format with --findings takes table, csv, json or jsonl", 2);
}

std::vector<diagnose::Finding> findings_involving(std::span<const diagnose::Finding> findings,
                                                  const std::optional<unsigned>& gpu_index,
                                                  const std::optional<std::string>& gpu_uuid) {
  std::vector<diagnose::Finding> out;
  for (const auto& f : findings) {
    const bool by_index = gpu_index && std::find(f.gpus.begin(), f.gpus.end(), *gpu_index) != f.gpus.end();
    const bool by_uuid = gpu_uuid && std::find(f.uuids.begin(), f.uuids.end(), *gpu_uuid) != f.uuids.end();
    if ((!gpu_index && !gpu_uuid) || by_index || by_uuid) out.push_back(f);
  }
  return out;
}

std::string render_findings(std::span<const diagnose::Finding> findings, FindingsFormat format,
                            const std::string& none_note) {
  std::vector<diagnose::Finding> ordered(findings.begin(), findings.end());
  std::stable_sort(ordered.begin(), ordered.end(), diagnose::finding_before);
  switch (format) {
    case FindingsFormat::Json: return core::json_text(diagnose::findings_json(ordered), 2) + "\n";
    case FindingsFormat::Jsonl: {
      std::string out;
      for (const auto& f : ordered) out += core::json_text(diagnose::to_json(f)) + "\n";
      return out;
    }
    case FindingsFormat::Csv: {
      std::string out;
      for (std::size_t i = 0; i < kHeader.size(); ++i) out += (i ? "," : "") + kHeader[i];
      out += "\n";
      for (const auto& f : ordered) {
        const auto row = row_of(f);
        for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + terminal::csv_cell(row[i]);
        out += "\n";
      }
      return out;
    }
    case FindingsFormat::Table: break;
  }
  if (ordered.empty()) return none_note + "\n";
  std::vector<std::vector<std::string>> rows = {kHeader};
  for (const auto& f : ordered) rows.push_back(row_of(f));
  return terminal::text_table(rows);
}

}  // namespace gpuwatch::history
