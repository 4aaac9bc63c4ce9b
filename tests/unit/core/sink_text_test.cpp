#include "core/sink_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sink_text_test {

using namespace gpuwatch::core;

// Every byte value but NUL, once, then the hostile strings of issue 31.
std::string hostile() {
  std::string all;
  for (int b = 1; b < 256; ++b) all += static_cast<char>(b);
  return all + "\x1b]52;c;aGVsbG8=\x07 \x1b]8;;https://evil.example\x07x\x1b]8;;\x07 \x1b[2J\r\nforged\xc2\x9b" "31m"
               "\xe2\x80\xae\xe2\x80\xa8\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80\xe2\x82";
}

bool has_raw_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x20 || b == 0x7f) return true;
    if (b == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

TEST(SinkText, TerminalShowsControlsVisibly) {
  EXPECT_EQ(terminal_text("a\x1b]52;c;aGVsbG8=\x07z"), "a\\x1b]52;c;aGVsbG8=\\x07z");
  EXPECT_EQ(terminal_text("line1\nline2\r\tend\x7f"), "line1\\nline2\\r\\tend\\x7f");
  EXPECT_EQ(terminal_text("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(terminal_text("c1 \xc2\x9b" "2J"), "c1 \\u009b2J");               // CSI as U+009B
  EXPECT_EQ(terminal_text("\xc2\x85" "next"), "\\u0085next");                  // NEL
  EXPECT_EQ(terminal_text("rtl\xe2\x80\xae" "gpj.exe"), "rtl\\u202egpj.exe");  // bidi override
  EXPECT_EQ(terminal_text("a\xe2\x80\xa8" "b"), "a\\u2028b");                 // line separator
}

TEST(SinkText, TerminalShowsInvalidUtf8BytesVisibly) {
  EXPECT_EQ(terminal_text("bad\xff"), "bad\\xff");
  EXPECT_EQ(terminal_text("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(terminal_text("cut\xe2\x82"), "cut\\xe2\\x82");              // truncated sequence
  EXPECT_EQ(terminal_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
}

TEST(SinkText, TerminalKeepsPrintableUtf8Unchanged) {
  for (const std::string text : {"H100 SXM 80GB", "66 °C", "学習ジョブ", "train 🚀", "café", "path\\to", "100 %"}) {
    EXPECT_EQ(terminal_text(text), text);
    EXPECT_FALSE(needs_terminal_encoding(text));
  }
  EXPECT_EQ(terminal_text(""), "");
}

TEST(SinkText, NoSinkLetsARawControlOrLineBreakThrough) {
  const std::string text = hostile();
  for (auto sink : {TextSink::Terminal, TextSink::PlainLine, TextSink::SlackMrkdwn, TextSink::Markdown}) {
    const std::string out = encode_for(sink, text);
    EXPECT_FALSE(has_raw_control(out)) << static_cast<int>(sink);
    EXPECT_EQ(out.find('\n'), std::string::npos);
    EXPECT_EQ(out.find('\r'), std::string::npos);
    EXPECT_FALSE(needs_terminal_encoding(out)) << "the encoding is valid, printable UTF-8";
  }
  EXPECT_FALSE(has_raw_control(csv_text(text)));
  EXPECT_EQ(encode_for(TextSink::Raw, text), text);
}

TEST(SinkText, SlackEscapesItsThreeCharacters) {
  EXPECT_EQ(slack_mrkdwn("<!channel> & <!here|here> <https://evil.example|CLICK>"),
            "&lt;!channel&gt; &amp; &lt;!here|here&gt; &lt;https://evil.example|CLICK&gt;");
  EXPECT_EQ(slack_mrkdwn("a\nb"), "a\\nb");
  EXPECT_EQ(slack_mrkdwn("GPU 3 is at 91 °C"), "GPU 3 is at 91 °C");
}

TEST(SinkText, MarkdownLinksEmphasisAndHeadingsAreText) {
  EXPECT_EQ(markdown_text("[click](https://evil.example)"), "\\[click\\](https://evil.example)");
  EXPECT_EQ(markdown_text("<https://evil.example>"), "\\<https://evil.example\\>");
  EXPECT_EQ(markdown_text("# big **bold** _it_ `code` ~~s~~"),
            "\\# big \\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~");
  EXPECT_EQ(markdown_text("![img](x)"), "!\\[img\\](x)");
  EXPECT_EQ(markdown_text("<@123> ||spoiler||"), "\\<@123\\> \\|\\|spoiler\\|\\|");
  EXPECT_EQ(markdown_text("a\\b"), "a\\\\b");
  EXPECT_EQ(markdown_text("a\n# forged"), "a\\\\n\\# forged");  // the visible \n, its backslash escaped
  EXPECT_EQ(markdown_text("GPU 3 at 91 °C (since 2026-11-30)."), "GPU 3 at 91 °C (since 2026-11-30).");
}

TEST(SinkText, EveryMarkdownSyntaxCharacterIsPrecededByABackslash) {
  const std::string out = markdown_text("[x](y) <z> *a* _b_ `c` #d |e| ~f~");
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::string_view("[]<>*_`#|~").find(out[i]) != std::string_view::npos) {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(out[i - 1], '\\') << out;
    }
  }
}

}  // namespace sink_text_test

namespace sink_text_test {

TEST(SinkText, TerminalLinesKeepsTheToolsOwnLineBreaks) {
  EXPECT_EQ(gpuwatch::core::terminal_lines("first\nsecond \x1b[2J\r"), "first\nsecond \\x1b[2J\\r");
  EXPECT_EQ(gpuwatch::core::terminal_lines("plain\n"), "plain\n");
}

}  // namespace sink_text_test
