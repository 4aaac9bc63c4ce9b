#pragma once
// The doctor's report as text (80 columns, every quoted byte through core::terminal_text) and
// as JSON (the same checks; strings exact, escaped).
#include <string>

#include "doctor/doctor.hpp"

namespace gpuwatch::doctor {

// Lines of at most WIDTH columns (a word longer than that is cut).
std::string render_text(const DoctorReport& report, std::size_t width = 80);
std::string render_json(const DoctorReport& report);

}  // namespace gpuwatch::doctor
