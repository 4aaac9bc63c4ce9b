#include "cli/did_you_mean.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <vector>

#include "core/did_you_mean.hpp"

namespace gpuwatch::cli {
namespace {

// The chain of commands that were given, outermost first (gpuwatch, sim, run).
std::vector<const CLI::App*> given_commands(const CLI::App& top) {
  std::vector<const CLI::App*> chain{&top};
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : chain.back()->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->parsed()) {
        chain.push_back(sub);
        deeper = true;
        break;
      }
    }
  }
  return chain;
}

// "gpuwatch sim run"
std::string command_path(const std::vector<const CLI::App*>& chain) {
  std::string path;
  for (const CLI::App* app : chain) path += (path.empty() ? "" : " ") + app->get_name();
  return path;
}

// The options a word could have meant: the innermost command's and, as options fall
// through to the commands around it, theirs.
std::vector<std::string> option_names(const std::vector<const CLI::App*>& chain) {
  std::vector<std::string> names;
  for (const CLI::App* app : chain) {
    for (const CLI::Option* option : app->get_options()) {
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
      for (const auto& name : option->get_snames()) names.push_back("-" + name);
    }
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

}  // namespace

std::string explain_parse_error(const CLI::App& top, const CLI::ParseError& error) {
  const auto chain = given_commands(top);
  const std::string path = command_path(chain);
  const CLI::App& innermost = *chain.back();
  const std::string help = fmt::format("Run `{} --help` for more information.\n", path);
  // Words nobody took end up with the outermost command (options fall through to it).
  std::vector<std::string> unknown = top.remaining();
  for (const CLI::App* app : chain) {
    if (app != &top) {
      for (const auto& word : app->remaining()) unknown.push_back(word);
    }
  }
  if (unknown.empty()) return fmt::format("{}: {}\n{}", path, error.what(), help);

  std::string out;
  const auto subcommands = subcommand_names(innermost);
  for (const auto& word : unknown) {
    if (!word.empty() && word[0] == '-' && word != "-") {
      const std::string flag = word.substr(0, word.find('='));
      out += fmt::format("{}: unknown option '{}'.{}\n", path, flag, core::did_you_mean(flag, option_names(chain)));
    } else if (!subcommands.empty()) {
      out += fmt::format("{}: unknown command '{}'.{}\n", path, word, core::did_you_mean(word, subcommands));
    } else {
      out += fmt::format("{}: unexpected argument '{}'.\n", path, word);
    }
  }
  return out + help;
}

}  // namespace gpuwatch::cli
