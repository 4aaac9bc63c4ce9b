#pragma once
// Output encoding (issue 31): every string a GPU, a driver, a process, a user or a file gave is
// encoded for where it goes, at the sink (JSON keeps the exact string, escaped by json_text).
// Pure functions over bytes; no I/O.
//
// - terminal_text: for text on stdout/stderr, tty or not. Printable UTF-8 (°, CJK, emoji) and
//   printable ASCII pass unchanged; everything a terminal would act on is shown visibly instead,
//   so no field can move the cursor, set the clipboard (OSC 52), make a link (OSC 8), ring the
//   bell or break the line:
//     LF CR TAB        -> \n \r \t
//     other C0, DEL    -> \xNN      (ESC is \x1b, BEL \x07)
//     C1 U+0080-U+009F, line/paragraph separators U+2028/U+2029, bidi controls U+202A-U+202E and
//     U+2066-U+2069    -> \uNNNN
//     a byte that is not valid UTF-8 (stray, overlong, surrogate, > U+10FFFF) -> \xNN
//   A backslash passes as itself: the escapes are for reading, not for decoding back.
// - plain_line: e-mail bodies and headers, ntfy: terminal_text (one line, no control byte).
// - slack_mrkdwn: plain_line, then & < > as &amp; &lt; &gt; (Slack's documented escaping), so
//   `<!channel>`, `<!here>` and `<https://x|label>` are text.
// - markdown_text: plain_line, then a backslash before each ASCII character Markdown gives a
//   meaning that could hide a link or restyle the message (\ ` * _ ~ [ ] < > # |), for Discord and
//   Teams: `[x](https://y)` is not a link, `<https://y>` no autolink, `**x**` no emphasis, `# x` no
//   heading, `<@id>` no mention. A bare URL stays visible as itself (the chat may link it).
// - csv_text: terminal_text (a CSV cell never holds a raw control byte; quoting stays the caller's).
#include <string>
#include <string_view>

namespace gpuwatch::core {

// Where a text goes. Raw: the exact bytes (an explicit opt-in, e.g. a template's `| raw`).
enum class TextSink { Raw, Terminal, PlainLine, SlackMrkdwn, Markdown };

std::string terminal_text(std::string_view text);
std::string plain_line(std::string_view text);
std::string slack_mrkdwn(std::string_view text);
std::string markdown_text(std::string_view text);
std::string csv_text(std::string_view text);
// A message of several lines the tool laid out (an error on stderr) that may quote untrusted
// bytes: each line as terminal_text, the LFs between them kept. Where the line structure
// itself must not be forged, encode the quoted part with terminal_text instead.
std::string terminal_lines(std::string_view text);

// TEXT encoded for SINK (Raw: unchanged).
std::string encode_for(TextSink sink, std::string_view text);

// True when terminal_text would change TEXT (a control, C1, bidi control or invalid UTF-8).
bool needs_terminal_encoding(std::string_view text);

}  // namespace gpuwatch::core
