#pragma once
// Files a simulated tree keeps under the simulated host root (vendor_tree.hpp, host_signal_tree.hpp),
// each replaced atomically: written under a temporary name in its folder, then renamed over it,
// so a reader opens the old file or the new one, whole. A file this writer wrote with the same
// content, and still the one it wrote, is left alone (most files hold still between two renders).
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace gpuwatch::sim {

class AtomicFileWriter {
 public:
  // Writes PATH (making its folders); false when it cannot.
  bool write(const std::filesystem::path& path, const std::string& content);
  // Removes PATH, a file or a whole folder, and forgets what this writer knew under it.
  void remove(const std::filesystem::path& path);

 private:
  std::set<std::filesystem::path> directories_;  // folders made (or found) already
  struct WrittenFile {
    std::string content;
    struct stat file;  // as it was renamed into place
  };
  std::map<std::filesystem::path, WrittenFile> written_;  // what this writer wrote last, by path
  std::uint64_t temp_counter_ = 0;
};

}  // namespace gpuwatch::sim
