// Passphrase files of encrypted client keys (key_password_file): read, checked, never quoted.
#include "core/key_password_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::core {
namespace key_password_file_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

struct PassDir {
  fs::path path;
  PassDir() {
    char pattern[] = "/tmp/gw_key_password_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~PassDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text, fs::perms mode = fs::perms::owner_read | fs::perms::owner_write) {
    const fs::path file = path / name;
    { std::ofstream(file) << text; }
    fs::permissions(file, mode);
    return file.string();
  }
};

TEST(KeyPasswordFile, DropsOneTrailingNewlineOnly) {
  EXPECT_EQ(without_one_trailing_newline("s3cret\n"), "s3cret");
  EXPECT_EQ(without_one_trailing_newline("s3cret\r\n"), "s3cret");
  EXPECT_EQ(without_one_trailing_newline("s3cret"), "s3cret");
  EXPECT_EQ(without_one_trailing_newline("two\n\n"), "two\n");     // a passphrase may end in a newline
  EXPECT_EQ(without_one_trailing_newline("spaced  \n"), "spaced  ");  // or in spaces
}

TEST(KeyPasswordFile, ReadsThePassphraseOfAPrivateFile) {
  PassDir dir;
  auto password = read_key_password_file(dir.write("pass", "correct horse \n"), "key_password_file");
  ASSERT_TRUE(password) << password.error().message;
  EXPECT_EQ(*password, "correct horse ");
  // Group-readable (root:service-group 0640) is accepted.
  auto grouped = read_key_password_file(
      dir.write("grouped", "pw\n", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read), "key_password_file");
  ASSERT_TRUE(grouped) << grouped.error().message;
  EXPECT_EQ(*grouped, "pw");
}

TEST(KeyPasswordFile, RefusesMissingEmptyAndWorldReadableFilesWithoutQuotingThem) {
  PassDir dir;
  const std::string missing = (dir.path / "nope").string();
  auto gone = read_key_password_file(missing, "tls_config.key_password_file");
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().message.find("cannot read tls_config.key_password_file '" + missing + "'"), std::string::npos)
      << gone.error().message;

  for (const char* text : {"", "\n", "\r\n"}) {
    auto empty = read_key_password_file(dir.write("empty", text), "key_password_file");
    ASSERT_FALSE(empty) << "'" << text << "'";
    EXPECT_NE(empty.error().message.find("is empty"), std::string::npos) << empty.error().message;
  }

  const std::string open = dir.write("open", "hunter2\n", fs::perms::owner_read | fs::perms::owner_write |
                                                             fs::perms::group_read | fs::perms::others_read);
  auto world = read_key_password_file(open, "key_password_file");
  ASSERT_FALSE(world);
  EXPECT_NE(world.error().message.find("'" + open + "' is open to other users (mode 0644)"), std::string::npos)
      << world.error().message;
  EXPECT_EQ(world.error().message.find("hunter2"), std::string::npos) << world.error().message;

  auto device = read_key_password_file("/dev/zero", "key_password_file");
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().message.find("is a device"), std::string::npos) << device.error().message;
}

TEST(KeyPasswordFile, AnEncryptedKeyWithoutAPassphraseIsAnError) {
  EXPECT_TRUE(is_encrypted_pem_key("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n"));
  EXPECT_TRUE(is_encrypted_pem_key("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n"));
  EXPECT_FALSE(is_encrypted_pem_key("-----BEGIN PRIVATE KEY-----\nMIGH\n"));
  EXPECT_FALSE(is_encrypted_pem_key("-----BEGIN EC PRIVATE KEY-----\nMHcC\n"));

  PassDir dir;
  const std::string encrypted = dir.write("client.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n");
  const std::string plain = dir.write("plain.key", "-----BEGIN PRIVATE KEY-----\nMIGH\n");
  auto refused = check_key_has_password(encrypted, "key_file", false, "key_password_file");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "key_file '" + encrypted + "' is encrypted: give key_password_file (a file holding its passphrase)");
  EXPECT_TRUE(check_key_has_password(encrypted, "key_file", true, "key_password_file"));
  EXPECT_TRUE(check_key_has_password(plain, "key_file", false, "key_password_file"));
  EXPECT_TRUE(check_key_has_password("", "key_file", false, "key_password_file"));  // no client key at all
}

}  // namespace key_password_file_test
}  // namespace gpuwatch::core
