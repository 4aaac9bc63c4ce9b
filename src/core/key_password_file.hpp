#pragma once
// The passphrase of an encrypted PEM private key, for the three places gpuwatch loads a key it
// was given: a notification channel's key_file, remote-write's tls_config.key_file and serve's
// tls_server_config.key_file (docs/alerts.md, docs/push.md, docs/deploy.md). The config
// names key_password_file, a file holding the passphrase; never the passphrase itself.
//
// The file must be a regular file of at most 64 KiB (core/bounded_read.hpp), not empty once one
// trailing newline ("\n" or "\r\n") is dropped, and not open to others (no o+rwx bit: 0600 or
// 0640 with a service group, as Debian's /etc/ssl/private). A group may read it, since a
// root-owned file readable by the service's group is the usual way to hand a daemon a secret.
// No message quotes the passphrase.
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuwatch::core {

// The passphrase in PATH. WHAT names it in errors ("key_password_file", "tls_config.key_password_file").
Result<std::string> read_key_password_file(const std::string& path, const std::string& what);

// TEXT less one trailing "\n" or "\r\n" (the newline an editor or `echo` adds; a passphrase may
// end in spaces or even in a second newline).
std::string without_one_trailing_newline(std::string text);

// Whether PEM holds an encrypted private key: PKCS#8 "BEGIN ENCRYPTED PRIVATE KEY" or a
// traditional key with "Proc-Type: 4,ENCRYPTED".
bool is_encrypted_pem_key(std::string_view pem);

// At load: a key in KEY_PATH that is encrypted while no passphrase is given is an error naming
// KEY_WHAT and the file (else OpenSSL would ask for it on a terminal, or fail at the first send).
// PASSWORD_WHAT names the missing key ("key_password_file"). Unreadable files are left to the
// callers' own checks.
Result<void> check_key_has_password(const std::string& key_path, const std::string& key_what, bool has_password,
                                    const std::string& password_what);

// What a config's key_password_file gives for its key_file, both paths resolved ("" = not set):
// the passphrase ("" when none is set), or the first problem: key_password_file without key_file,
// a passphrase file read_key_password_file refuses, or an encrypted key_file without one.
// KEY_WHAT and PASSWORD_WHAT name the two keys in messages ("tls_config.key_file", ...).
Result<std::string> key_password_for(const std::string& key_file, const std::string& password_file,
                                     const std::string& key_what, const std::string& password_what);

}  // namespace gpuwatch::core
