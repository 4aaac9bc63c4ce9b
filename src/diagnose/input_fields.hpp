#pragma once
// The fields the diagnose engine reads (gpu_sample.cpp): a command that shows findings samples
// these besides its own, so that an absent input never hides a finding.
#include <vector>

#include "core/field.hpp"

namespace gpuwatch::diagnose {

const std::vector<core::FieldId>& input_fields();

// FIELDS with every input field appended that it lacks.
std::vector<core::FieldId> with_input_fields(std::vector<core::FieldId> fields);

}  // namespace gpuwatch::diagnose
