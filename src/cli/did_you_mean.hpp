#pragma once
// Turns a command-line parse error into the message gpuwatch prints: which command it is
// about, and for a word that is not a command or an option of that command, the closest
// ones (`gpuwatch stauts` -> "Did you mean 'status'?"). The distances are core/did_you_mean.
#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace gpuwatch::cli {

// TOP is the whole command line's app after a parse that threw ERROR (not --help or
// --version). Returns the lines to print on stderr, ending with where help is.
std::string explain_parse_error(const CLI::App& top, const CLI::ParseError& error);

}  // namespace gpuwatch::cli
