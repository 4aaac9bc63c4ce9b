#include "push/push_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace push_config_test {

namespace fs = std::filesystem;

TEST(PushConfig, ReadsLabelsAuthBufferAndSecretFiles) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-push-config-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "pw") << "s3cret\n"; }
  const std::string text =
      "external_labels: {cluster: hpc-a}\n"
      "basic_auth: {username: gpu, password_file: pw}\n"
      "remote_timeout: 5s\n"
      "buffer: {dir: buf, max_size: 2MiB, max_age: 10m}\n";
  auto config = gpuwatch::push::parse_push_config(text, (dir / "push.yaml").string());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->external_labels.at(0).value, "hpc-a");
  EXPECT_EQ(config->password, "s3cret");
  EXPECT_EQ(config->timeout, std::chrono::seconds(5));
  EXPECT_EQ(config->buffer_dir, dir / "buf");
  EXPECT_EQ(config->limits.max_bytes, 2u << 20);
  EXPECT_EQ(config->limits.max_age, std::chrono::minutes(10));
  fs::remove_all(dir);
}

TEST(PushConfig, ErrorsNameTheKey) {
  auto unknown = gpuwatch::push::parse_push_config("bufer: {}\n", "p.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("p.yaml:1: bufer: unknown key"), std::string::npos) << unknown.error().message;
  auto size = gpuwatch::push::parse_push_config("buffer: {max_size: lots}\n", "p.yaml");
  ASSERT_FALSE(size);
  EXPECT_NE(size.error().message.find("buffer.max_size"), std::string::npos);
  EXPECT_FALSE(gpuwatch::push::load_push_config("ftp://x", ""));
}

}  // namespace push_config_test
