#pragma once
// The environment an exec channel's command runs with: scrubbed, never serve's own. It gets
// PATH (serve's, or /usr/local/bin:/usr/bin:/bin when unset), LANG and LC_ALL when set, and
// the variables the channel names in its `env:` list, when set. Nothing else of serve's
// environment reaches it: not the other channels' token_env / password_env / url_env secrets,
// nor anything a service manager or a shell put there (docs/security.md).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::notify {

inline constexpr std::string_view kDefaultExecPath = "/usr/local/bin:/usr/bin:/bin";

// [A-Za-z_][A-Za-z0-9_]*: what `env:` may list.
bool is_environment_name(std::string_view name);

// "NAME=value" entries for posix_spawn; LOOKUP(name) is serve's value (null when unset).
std::vector<std::string> exec_environment(const std::vector<std::string>& names,
                                          const std::function<const char*(const std::string&)>& lookup);

}  // namespace gpuwatch::notify
