#include "query/options.hpp"

#include <fmt/format.h>

#include <functional>
#include <sstream>

#include "core/did_you_mean.hpp"

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

// Every name and alias of a field table, for "did you mean".
template <typename Table>
std::vector<std::string> known_names(const Table& table) {
  std::vector<std::string> names;
  for (const auto& field : table) {
    names.emplace_back(field.name);
    for (auto alias : field.alias_list()) names.emplace_back(alias);
  }
  return names;
}

// nvidia-smi's message, then the closest names and where the list is.
template <typename Table>
core::Error unknown_field(const std::string& name, const Table& table, std::string_view help_flag) {
  return core::make_error(fmt::format("Field \"{}\" is not a valid field to query.{} {} lists the fields.", name,
                                      core::did_you_mean(name, known_names(table)), help_flag));
}

template <typename Id, typename Find>
core::Result<std::vector<Id>> parse_fields(const std::string& list, Find find, const std::function<core::Error(const std::string&)>& unknown) {
  std::vector<Id> out;
  for (const auto& name : split_commas(list)) {
    if (name.empty()) continue;
    auto id = find(name);
    if (!id) return unknown(name);
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
  return parse_fields<core::FieldId>(
      list, [](const std::string& n) { return core::find_field(n); },
      [](const std::string& n) { return unknown_field(n, core::field_table(), "--help-query-gpu"); });
}

core::Result<std::vector<core::AppFieldId>> parse_app_fields(const std::string& list) {
  return parse_fields<core::AppFieldId>(
      list, [](const std::string& n) { return core::find_app_field(n); },
      [](const std::string& n) { return unknown_field(n, core::app_field_table(), "--help-query-compute-apps"); });
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
