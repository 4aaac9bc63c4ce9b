#include "notify/exec_environment.hpp"

#include <algorithm>

namespace gpuwatch::notify {

bool is_environment_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string> exec_environment(const std::vector<std::string>& names,
                                          const std::function<const char*(const std::string&)>& lookup) {
  std::vector<std::string> out;
  std::vector<std::string> seen;
  auto add = [&](const std::string& name) {
    if (!is_environment_name(name) || std::find(seen.begin(), seen.end(), name) != seen.end()) return;
    seen.push_back(name);
    if (const char* value = lookup(name)) out.push_back(name + "=" + value);
  };
  if (const char* path = lookup("PATH"); path == nullptr || *path == '\0') {
    out.push_back("PATH=" + std::string(kDefaultExecPath));
    seen.emplace_back("PATH");
  }
  add("PATH");
  add("LANG");
  add("LC_ALL");
  for (const auto& name : names) add(name);
  return out;
}

}  // namespace gpuwatch::notify
