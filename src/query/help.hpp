#pragma once
// --help-query-gpu / --help-query-compute-apps text and docs/fields.md, all
// generated from the field table.
#include <string>

namespace gpuwatch::query {

std::string help_query_gpu_text();
std::string help_query_compute_apps_text();
// The Markdown of docs/fields.md (`gpuwatch query --help-query-gpu --format=md`).
std::string fields_markdown();

}  // namespace gpuwatch::query
