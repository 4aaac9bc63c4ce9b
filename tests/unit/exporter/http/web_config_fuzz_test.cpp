// What fuzz/web_config_fuzz.cpp found (issue 16, part 4).
#include <gtest/gtest.h>

#include "exporter/http/web_config.hpp"

namespace gpuwatch::exporter {
namespace {

TEST(WebConfigFuzzFindings, AMaxVersionBelowTheDefaultMinVersionIsAnErrorNotACrash) {
  // min_version unset (TLS12) and max_version TLS11: the error pointed at the absent
  // min_version key, whose Mark() threw YAML::InvalidNode out of parse_web_config.
  auto config = parse_web_config("tls_server_config:\n  cert_file: a\n  key_file: b\n  max_version: TLS11\n", "web.yml",
                                 "/etc/gpuwatch");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().message,
            "web.yml:4: tls_server_config.max_version: is below min_version (TLS12 when not set: set min_version too)");
  auto both = parse_web_config("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n",
                               "web.yml", "/etc/gpuwatch");
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().message, "web.yml:4: tls_server_config.min_version: is above max_version");
}

}  // namespace
}  // namespace gpuwatch::exporter
