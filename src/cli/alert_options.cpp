#include "cli/alert_options.hpp"

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

void add_alert_options(CLI::App& command, AlertArgs& args) {
  command.add_option("--alert-rules", args.rules_file,
                     "Evaluate the alert rules of this YAML file instead of the built-in set (docs/alerts.md; "
                     "`gpuwatch alerts rules` prints the built-in one); a bad file exits 2 before anything starts");
  command.add_flag("--no-alerts", args.no_alerts, "Do not evaluate alert rules (and send no notifications)");
  command.add_option("--notify", args.notify,
                     "Send alerts to this channel, repeatable: webhook=URL, slack=URL, discord=URL, teams=URL, "
                     "ntfy=URL, alertmanager=URL, desktop, exec=COMMAND, or a channel NAME from --notify-config. "
                     "Secrets: put tokens in --notify-config as url_file/url_env, password_file/password_env, "
                     "token_file/token_env (never on the command line of a shared machine)");
  command.add_option("--notify-config", args.notify_config,
                     "YAML file of notification channels (email/SMTP, headers, rate limits, secrets from files or "
                     "the environment); docs/alerts.md#channels");
}

}  // namespace gpuwatch::cli
