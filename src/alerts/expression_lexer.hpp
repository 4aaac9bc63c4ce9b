#pragma once
// Why its own file: the expression's words (numbers with their units converted to base units,
// names, strings, operators) come from one pass over the text, apart from the grammar that
// orders them (expression_parser.cpp). Both report errors the same way: fail() with a column.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/expression.hpp"

namespace gpuwatch::alerts::expression_syntax {

enum class Tok : std::uint8_t { Number, Ident, String, LParen, RParen, Comma, Op, End };
struct Token {
  Tok kind = Tok::End;
  std::size_t pos = 0;
  std::string text;
  double number = 0;
  bool is_duration = false;
};

// What fail() throws; Expression::parse turns it into its ParseError.
struct Fail {
  Expression::ParseError error;
};
// Stops parsing with MESSAGE at POS (0-based in the text; the error's column is 1-based).
[[noreturn]] void fail(std::size_t pos, std::string message);

// TEXT as tokens, the last one Tok::End; a malformed number or unknown character fails.
std::vector<Token> lex(std::string_view s);

}  // namespace gpuwatch::alerts::expression_syntax
