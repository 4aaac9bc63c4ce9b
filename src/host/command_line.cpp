#include "host/command_line.hpp"

#include <fstream>
#include <vector>

namespace gpuwatch::host {

std::string join_cmdline(std::string raw) {
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

std::optional<std::string> read_command_line(unsigned pid, std::size_t max_bytes, const std::string& proc_root) {
  std::ifstream in(proc_root + "/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<char> buffer(max_bytes);
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  std::string text = join_cmdline(std::string(buffer.data(), static_cast<std::size_t>(in.gcount())));
  if (text.empty()) return std::nullopt;
  return text;
}

}  // namespace gpuwatch::host
