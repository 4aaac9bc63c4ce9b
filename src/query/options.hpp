#pragma once
// `gpuwatch query` options, nvidia-smi's spelling: --query-gpu=, --query-compute-apps=,
// --format=csv[,noheader][,nounits] (+ json, jsonl), -i, -l, -lms, -f.
#include <string>
#include <vector>

#include "core/field_table.hpp"
#include "core/result.hpp"

namespace gpuwatch::query {

enum class QueryOutput { Csv, Json, Jsonl, Markdown };

struct QueryFormat {
  QueryOutput output = QueryOutput::Csv;
  bool header = true;   // csv only: noheader turns it off
  bool units = true;    // csv only: nounits turns it off
};

// "csv,noheader,nounits", "json", "jsonl" ("md" only for --help-query-gpu).
core::Result<QueryFormat> parse_query_format(const std::string& text);

// "name,memory.used" -> field ids; unknown names give nvidia-smi's message
// `Field "x" is not a valid field to query.`
core::Result<std::vector<core::FieldId>> parse_gpu_fields(const std::string& list);
core::Result<std::vector<core::AppFieldId>> parse_app_fields(const std::string& list);

// nvidia-smi spells one option "-lms" (single dash, three letters), which CLI11
// cannot declare: rewrite it (and "-lms=N") to "--loop-ms" before parsing.
std::vector<std::string> normalize_nvidia_smi_args(int argc, char** argv);

}  // namespace gpuwatch::query
