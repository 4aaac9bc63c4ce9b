#include "core/key_password_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/bounded_read.hpp"

namespace gpuwatch::core {

std::string without_one_trailing_newline(std::string text) {
  if (!text.empty() && text.back() == '\n') {
    text.pop_back();
    if (!text.empty() && text.back() == '\r') text.pop_back();
  }
  return text;
}

Result<std::string> read_key_password_file(const std::string& path, const std::string& what) {
  auto text = read_regular_file(path, what, kMaxSecretFileBytes);
  if (!text) return text.error();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_error("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if ((st.st_mode & S_IRWXO) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return make_error(what + " '" + path + "' is open to other users (mode " + mode +
                      "): a passphrase must be private; chmod o-rwx it (0600, or 0640 for a group)");
  }
  std::string password = without_one_trailing_newline(std::move(*text));
  if (password.empty()) return make_error(what + " '" + path + "' is empty: it should hold the key's passphrase");
  return password;
}

bool is_encrypted_pem_key(std::string_view pem) {
  return pem.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string_view::npos ||
         pem.find("Proc-Type: 4,ENCRYPTED") != std::string_view::npos;
}

Result<void> check_key_has_password(const std::string& key_path, const std::string& key_what, bool has_password,
                                    const std::string& password_what) {
  if (has_password || key_path.empty()) return {};
  auto pem = read_regular_file(key_path, key_what, kMaxConfigFileBytes);
  if (!pem) return {};  // the caller's own check reports an unreadable key
  if (!is_encrypted_pem_key(*pem)) return {};
  return make_error(key_what + " '" + key_path + "' is encrypted: give " + password_what +
                    " (a file holding its passphrase)");
}

Result<std::string> key_password_for(const std::string& key_file, const std::string& password_file,
                                     const std::string& key_what, const std::string& password_what) {
  if (password_file.empty()) {
    if (auto ok = check_key_has_password(key_file, key_what, false, password_what); !ok) return ok.error();
    return std::string();
  }
  if (key_file.empty()) return make_error("needs " + key_what + " (it is the passphrase of that key)");
  return read_key_password_file(password_file, password_what);
}

}  // namespace gpuwatch::core
