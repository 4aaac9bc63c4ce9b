#pragma once
// A SystemView over maps, for the doctor's tests.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/system_view.hpp"

namespace gpuwatch::doctor::testing {

class FakeSystemView : public SystemView {
 public:
  std::map<std::string, std::string> files;     // path -> text
  std::map<std::string, bool> nodes;            // /dev/NAME -> read-writable
  std::map<std::string, std::string> variables;
  std::optional<std::string> journal;

  std::string root() const override { return "/fake"; }
  std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) const override {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second.substr(0, max_bytes);
  }
  bool exists(const std::string& path) const override { return files.count(path) > 0 || nodes.count(path) > 0; }
  std::optional<std::vector<std::string>> list(const std::string& path) const override {
    std::vector<std::string> names;
    const std::string prefix = path + "/";
    for (const auto& [p, _] : nodes)
      if (p.rfind(prefix, 0) == 0) names.push_back(p.substr(prefix.size()));
    for (const auto& [p, _] : files) {
      if (p.rfind(prefix, 0) != 0) continue;
      std::string rest = p.substr(prefix.size());
      rest = rest.substr(0, rest.find('/'));
      if (std::find(names.begin(), names.end(), rest) == names.end()) names.push_back(rest);
    }
    return names;
  }
  std::optional<bool> read_writable(const std::string& path) const override {
    auto it = nodes.find(path);
    if (it == nodes.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::string> env(const std::string& name) const override {
    auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::string> kernel_journal() const override { return journal; }
};

}  // namespace gpuwatch::doctor::testing
