#include "host/process_info.hpp"

#include <pwd.h>
#include <sys/types.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace gpuwatch::host {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::optional<std::string> user_of(const std::string& status_text) {
  std::istringstream lines(status_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    unsigned long uid = 0;
    if (!(fields >> uid)) return std::nullopt;
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(4096);
    if (getpwuid_r(static_cast<uid_t>(uid), &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
      return std::string(found->pw_name);
    }
    return std::to_string(uid);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ProcessInfo::command() const {
  if (command_line && !command_line->empty()) {
    std::string argv0 = command_line->substr(0, command_line->find(' '));
    auto slash = argv0.rfind('/');
    return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  }
  return name;
}

ProcessInfo read_process_info(unsigned pid, const std::string& proc_root) {
  ProcessInfo info;
  const std::string dir = proc_root + "/" + std::to_string(pid) + "/";
  if (auto status = read_file(dir + "status")) info.user = user_of(*status);
  if (auto cmdline = read_file(dir + "cmdline")) {
    while (!cmdline->empty() && cmdline->back() == '\0') cmdline->pop_back();
    for (char& c : *cmdline) {
      if (c == '\0') c = ' ';
    }
    if (!cmdline->empty()) info.command_line = std::move(*cmdline);
  }
  if (auto comm = read_file(dir + "comm")) {
    while (!comm->empty() && (comm->back() == '\n' || comm->back() == '\0')) comm->pop_back();
    if (!comm->empty()) info.name = std::move(*comm);
  }
  return info;
}

}  // namespace gpuwatch::host
