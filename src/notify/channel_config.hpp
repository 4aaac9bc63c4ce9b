#pragma once
// Channels from the command line (`--notify TYPE=URL`, `--notify desktop`, `--notify NAME`) and
// from the YAML file of `--notify-config FILE` (docs/alerts.md "Channels"). Everything is checked
// here, once, at start-up: an error names the spec or the file, line and key, and the problem,
// and never quotes a secret. Secrets come from files (`url_file`, `password_file`, `token_file`)
// or the environment (`url_env`, `password_env`, `token_env`); a URL on the command line is
// accepted too (it shows in `ps`: the docs say so).
#include <string>
#include <vector>

#include "core/result.hpp"
#include "notify/channel.hpp"

namespace gpuwatch::notify {

// NOTIFY_SPECS: each --notify value. CONFIG_FILE: --notify-config ("" for none). With a config
// file and no spec, every channel of the file is used. A spec that is a bare name selects that
// channel of the file; TYPE=NAME (email=NAME) selects it and checks its type. Channel names are
// unique. The error's code is the usage exit code (2).
core::Result<std::vector<Channel>> parse_channels(const std::vector<std::string>& notify_specs,
                                                  const std::string& config_file);

// The channels of a config file's text (SOURCE names it in errors; BASE_DIR resolves relative
// *_file paths). For tests and for parse_channels.
core::Result<std::vector<Channel>> parse_channel_config(const std::string& yaml, const std::string& source,
                                                        const std::string& base_dir);

// One --notify TYPE=VALUE spec that needs no config file (webhook=URL, slack=URL, ..., desktop,
// exec=COMMAND); an error for a spec that names a config channel.
core::Result<Channel> parse_channel_spec(const std::string& spec);

// "20/1m" (at most 20 messages a minute), "5/30s", "none": a channel's rate_limit.
core::Result<RateLimit> parse_rate_limit(const std::string& text);

// The checks every channel passes whatever its source (URL scheme, required keys, ...).
core::Result<void> validate_channel(const Channel& channel);

}  // namespace gpuwatch::notify
