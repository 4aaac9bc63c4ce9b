#include "query/options.hpp"

#include <fmt/format.h>

#include <sstream>

namespace gpuwatch::query {
namespace {

std::string trim(std::string s) {
  auto first = s.find_first_not_of(" \t");
  auto last = s.find_last_not_of(" \t");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(trim(item));
  return out;
}

template <typename Id, typename Find>
core::Result<std::vector<Id>> parse_fields(const std::string& list, Find find) {
  std::vector<Id> out;
  for (const auto& name : split_commas(list)) {
    if (name.empty()) continue;
    auto id = find(name);
    if (!id) return core::make_error(fmt::format("Field \"{}\" is not a valid field to query.", name));
    out.push_back(*id);
  }
  if (out.empty()) return core::make_error("No fields to query: give a comma-separated list, e.g. --query-gpu=name,memory.used");
  return out;
}

}  // namespace

core::Result<QueryFormat> parse_query_format(const std::string& text) {
  QueryFormat format;
  bool have_kind = false;
  for (const auto& word : split_commas(text)) {
    if (word == "csv") {
      format.output = QueryOutput::Csv;
      have_kind = true;
    } else if (word == "json") {
      format.output = QueryOutput::Json;
      have_kind = true;
    } else if (word == "jsonl") {
      format.output = QueryOutput::Jsonl;
      have_kind = true;
    } else if (word == "md" || word == "markdown") {
      format.output = QueryOutput::Markdown;
      have_kind = true;
    } else if (word == "noheader") {
      format.header = false;
    } else if (word == "nounits") {
      format.units = false;
    } else {
      return core::make_error(fmt::format("\"{}\" is not a valid format option (use csv[,noheader][,nounits], json or jsonl).", word));
    }
  }
  if (!have_kind) return core::make_error("--format needs csv, json or jsonl, e.g. --format=csv,noheader");
  return format;
}

core::Result<std::vector<core::FieldId>> parse_gpu_fields(const std::string& list) {
  return parse_fields<core::FieldId>(list, [](const std::string& n) { return core::find_field(n); });
}

core::Result<std::vector<core::AppFieldId>> parse_app_fields(const std::string& list) {
  return parse_fields<core::AppFieldId>(list, [](const std::string& n) { return core::find_app_field(n); });
}

std::vector<std::string> normalize_nvidia_smi_args(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-lms") {
      arg = "--loop-ms";
    } else if (arg.rfind("-lms=", 0) == 0) {
      arg = "--loop-ms=" + arg.substr(5);
    }
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace gpuwatch::query
