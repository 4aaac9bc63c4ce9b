#pragma once
// The message `gpuwatch run --notify CHANNEL` sends when its job ends, as a group the channels
// already render (sender.hpp): one alert, GpuwatchJobFinished (info) or GpuwatchJobFailed
// (warning), whose summary is TEXT ("job train finished after 3 h 12 m").
#include <string>

#include "notify/group.hpp"

namespace gpuwatch::notify {

Group job_group(const std::string& job_name, const std::string& text, bool failed, const std::string& host,
                alerts::TimePoint now);

}  // namespace gpuwatch::notify
