#include "notify/send_result.hpp"

namespace gpuwatch::notify {

std::string summarize(const SendResult& result) {
  std::string text;
  if (result.status) text = "status " + std::to_string(*result.status);
  if (!result.error.empty()) text += (text.empty() ? "" : ": ") + result.error;
  std::string answer = result.answer;
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) answer.pop_back();
  if (!answer.empty()) text += (text.empty() ? "" : ": ") + answer;
  return text.empty() ? (result.accepted ? "accepted" : "no answer") : text;
}

}  // namespace gpuwatch::notify
