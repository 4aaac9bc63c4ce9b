#include "cli/did_you_mean.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpuwatch::cli {
namespace {

// A small gpuwatch: global options, `status --json`, `sim list|run SCENARIO`. Returns what
// explain_parse_error says about ARGS, or "" when they parse.
std::string explain(std::vector<std::string> args) {
  CLI::App app{"t", "gpuwatch"};
  app.require_subcommand(0, 1);
  app.fallthrough();
  std::string simulate, scenario;
  bool json = false;
  app.add_option("--simulate", simulate);
  app.add_flag("--no-color", json);
  app.add_subcommand("status", "")->add_flag("--json", json);
  app.add_subcommand("serve", "");
  CLI::App* sim = app.add_subcommand("sim", "");
  sim->require_subcommand(1);
  sim->add_subcommand("list", "");
  sim->add_subcommand("run", "")->add_option("scenario", scenario)->required();
  args.insert(args.begin(), "gpuwatch");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return explain_parse_error(app, e);
  }
  return "";
}

// Issue 9: `gpuwatch stauts`, `sim lst` and misspelt options get the closest names.
TEST(ExplainParseError, Issue9UnknownCommandGetsTheClosest) {
  EXPECT_EQ(explain({"stauts"}),
            "gpuwatch: unknown command 'stauts'. Did you mean 'status'?\n"
            "Run `gpuwatch --help` for more information.\n");
  EXPECT_EQ(explain({"sim", "lst"}),
            "gpuwatch sim: unknown command 'lst'. Did you mean 'list'?\n"
            "Run `gpuwatch sim --help` for more information.\n");
}

TEST(ExplainParseError, Issue9UnknownOptionGetsTheClosestOfItsCommand) {
  EXPECT_EQ(explain({"status", "--jsn"}),
            "gpuwatch status: unknown option '--jsn'. Did you mean '--json'?\n"
            "Run `gpuwatch status --help` for more information.\n");
  // Global options are options of every command.
  EXPECT_NE(explain({"status", "--no-colour"}).find("Did you mean '--no-color'?"), std::string::npos);
  EXPECT_NE(explain({"status", "--jsn=1"}).find("unknown option '--jsn'"), std::string::npos);
}

TEST(ExplainParseError, NothingCloseStillNamesTheWord) {
  EXPECT_EQ(explain({"banana"}),
            "gpuwatch: unknown command 'banana'.\nRun `gpuwatch --help` for more information.\n");
  EXPECT_EQ(explain({"status", "extra"}),
            "gpuwatch status: unexpected argument 'extra'.\nRun `gpuwatch status --help` for more information.\n");
}

TEST(ExplainParseError, OtherErrorsNameTheirCommand) {
  EXPECT_EQ(explain({"sim", "run"}),
            "gpuwatch sim run: scenario is required\nRun `gpuwatch sim run --help` for more information.\n");
  EXPECT_EQ(explain({"status", "--json"}), "");
}

}  // namespace
}  // namespace gpuwatch::cli
