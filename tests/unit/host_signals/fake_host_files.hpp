#pragma once
// An in-memory host tree for the host signals' tests: files by absolute path; a folder lists
// the names of the files and folders under it.
#include <map>
#include <set>
#include <string>

#include "host_signals/host_files.hpp"

namespace gpuwatch::host_signals::testing_support {

class FakeHostFiles : public HostFiles {
 public:
  std::map<std::string, std::string> files;
  mutable int reads = 0;

  std::optional<std::string> read(const std::string& path, std::size_t max_bytes) const override {
    ++reads;
    auto found = files.find(path);
    if (found == files.end()) return std::nullopt;
    return found->second.substr(0, max_bytes);
  }
  std::optional<std::vector<std::string>> list(const std::string& path) const override {
    const std::string prefix = path + "/";
    std::set<std::string> names;
    for (const auto& [file, _] : files) {
      if (file.rfind(prefix, 0) != 0) continue;
      names.insert(file.substr(prefix.size(), file.find('/', prefix.size()) - prefix.size()));
    }
    if (names.empty()) return std::nullopt;
    return std::vector<std::string>(names.begin(), names.end());
  }
};

}  // namespace gpuwatch::host_signals::testing_support
