#include "notify/send_result.hpp"

#include "core/sink_text.hpp"

namespace gpuwatch::notify {

std::string summarize(const SendResult& result) {
  std::string text;
  if (result.status) text = "status " + std::to_string(*result.status);
  // A receiver's error body and a transport's message are shown visibly: they reach a terminal
  // (`alerts test`) and log lines, and a receiver chooses their bytes (issue 31).
  if (!result.error.empty()) text += (text.empty() ? "" : ": ") + core::terminal_text(result.error);
  std::string answer = result.answer;
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) answer.pop_back();
  if (!answer.empty()) text += (text.empty() ? "" : ": ") + core::terminal_text(answer);
  return text.empty() ? (result.accepted ? "accepted" : "no answer") : text;
}

}  // namespace gpuwatch::notify
