#include "exporter/http/basic_auth.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

namespace gpuwatch::exporter {
namespace {

// Cost-04 bcrypt hashes (libxcrypt, via Python's crypt): fast enough for unit tests.
using Users = std::map<std::string, std::string>;
constexpr const char* kS3cretHash = "$2b$04$hQqdQ3bgBEhrjtKPkNSq8O5PPYGCumiJzEMmFcljlJca2K5FufT/q";

TEST(BasicAuthorization, Parses) {
  auto c = parse_basic_authorization("Basic YWxpY2U6czNjcmV0");  // alice:s3cret
  ASSERT_TRUE(c);
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->password, "s3cret");
  auto lower = parse_basic_authorization("basic   YWxpY2U6czNjcmV0 ");  // scheme case-insensitive
  ASSERT_TRUE(lower);
  EXPECT_EQ(lower->user, "alice");
  auto colon = parse_basic_authorization("Basic YTpiOmM=");  // a:b:c: the password keeps its ':'
  ASSERT_TRUE(colon);
  EXPECT_EQ(colon->user, "a");
  EXPECT_EQ(colon->password, "b:c");
  auto unpadded = parse_basic_authorization("Basic YTpiOmM");
  ASSERT_TRUE(unpadded);
  EXPECT_EQ(unpadded->password, "b:c");
  auto empty_password = parse_basic_authorization("Basic YTo=");  // "a:"
  ASSERT_TRUE(empty_password);
  EXPECT_EQ(empty_password->password, "");
}

TEST(BasicAuthorization, Refuses) {
  EXPECT_FALSE(parse_basic_authorization(""));
  EXPECT_FALSE(parse_basic_authorization("Basic"));
  EXPECT_FALSE(parse_basic_authorization("Bearer YWxpY2U6czNjcmV0"));
  EXPECT_FALSE(parse_basic_authorization("Basic YWxpY2U="));       // "alice": no ':'
  EXPECT_FALSE(parse_basic_authorization("Basic YWxp!2U6czNjcmV0"));  // not base64
  EXPECT_FALSE(parse_basic_authorization("Basic Y"));               // truncated
}

TEST(Bcrypt, MatchesWithLibxcrypt) {
  EXPECT_TRUE(bcrypt_matches("s3cret", kS3cretHash));
  EXPECT_FALSE(bcrypt_matches("s3cret ", kS3cretHash));
  EXPECT_FALSE(bcrypt_matches("", kS3cretHash));
  // $2y$ (htpasswd's) and $2a$ are the same algorithm for ASCII passwords.
  std::string y = kS3cretHash;
  y[2] = 'y';
  EXPECT_TRUE(bcrypt_matches("s3cret", y));
  std::string a = kS3cretHash;
  a[2] = 'a';
  EXPECT_TRUE(bcrypt_matches("s3cret", a));
  // crypt() stops at a NUL: "s3cret\0x" must not pass as "s3cret".
  EXPECT_FALSE(bcrypt_matches(std::string("s3cret\0x", 8), kS3cretHash));
  EXPECT_FALSE(bcrypt_matches("s3cret", "$2b$04$short"));  // libxcrypt refuses the setting
}

TEST(BasicAuthenticator, CachesSuccessesOnly) {
  BasicAuthenticator auth(Users{{"alice", kS3cretHash}});
  EXPECT_TRUE(auth.verify("alice", "s3cret"));
  EXPECT_EQ(auth.bcrypt_runs(), 1u);
  EXPECT_TRUE(auth.verify("alice", "s3cret"));
  EXPECT_TRUE(auth.allows("Basic YWxpY2U6czNjcmV0"));
  EXPECT_EQ(auth.bcrypt_runs(), 1u) << "a remembered success pays no bcrypt";
  EXPECT_FALSE(auth.verify("alice", "wrong"));
  EXPECT_FALSE(auth.verify("alice", "wrong"));
  EXPECT_EQ(auth.bcrypt_runs(), 3u) << "failures are never remembered";
  EXPECT_TRUE(auth.verify("alice", "s3cret"));
  EXPECT_EQ(auth.bcrypt_runs(), 3u);
}

TEST(BasicAuthenticator, UnknownUserCostsABcryptAndFails) {
  BasicAuthenticator auth(Users{{"alice", kS3cretHash}});
  EXPECT_FALSE(auth.verify("mallory", "s3cret"));  // alice's password under another name
  EXPECT_EQ(auth.bcrypt_runs(), 1u);
  EXPECT_FALSE(auth.verify("Alice", "s3cret"));  // user names are case-sensitive
  EXPECT_FALSE(auth.verify("mallory", "s3cret"));
  EXPECT_EQ(auth.bcrypt_runs(), 3u);
}

TEST(BasicAuthenticator, NoHeaderOrBadHeaderCostsNothing) {
  BasicAuthenticator auth(Users{{"alice", kS3cretHash}});
  EXPECT_FALSE(auth.allows(""));
  EXPECT_FALSE(auth.allows("Bearer abc"));
  EXPECT_FALSE(auth.allows("Basic !!!"));
  EXPECT_EQ(auth.bcrypt_runs(), 0u);
}

TEST(BasicAuthenticator, FullCacheStartsOver) {
  BasicAuthenticator auth(Users{{"alice", kS3cretHash}, {"bob", kS3cretHash}}, /*cache_capacity=*/1);
  EXPECT_TRUE(auth.verify("alice", "s3cret"));
  EXPECT_TRUE(auth.verify("bob", "s3cret"));    // evicts alice
  EXPECT_TRUE(auth.verify("alice", "s3cret"));  // bcrypt again
  EXPECT_EQ(auth.bcrypt_runs(), 3u);
}

TEST(BasicAuthenticator, ConcurrentChecks) {
  BasicAuthenticator auth(Users{{"alice", kS3cretHash}});
  std::vector<std::thread> threads;
  std::vector<int> results(8, -1);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&auth, &results, i] { results[i] = auth.verify("alice", i % 2 ? "s3cret" : "nope"); });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(results[i], i % 2) << i;
  EXPECT_GE(auth.bcrypt_runs(), 5u);  // the 4 failures, plus at least one success
  EXPECT_LE(auth.bcrypt_runs(), 8u);
}

TEST(BasicAuthenticator, PrepareThenConcludeAsTheServerDoes) {
  BasicAuthenticator auth(Users{{"alice", kS3cretHash}});
  EXPECT_EQ(auth.prepare("").verdict, AuthCheck::Verdict::Denied);
  EXPECT_EQ(auth.prepare("Bearer abc").verdict, AuthCheck::Verdict::Denied);
  AuthCheck first = auth.prepare("Basic YWxpY2U6czNjcmV0");  // alice:s3cret
  ASSERT_EQ(first.verdict, AuthCheck::Verdict::NeedsBcrypt);
  EXPECT_EQ(first.password, "s3cret");
  EXPECT_EQ(first.hash, kS3cretHash);
  EXPECT_TRUE(auth.conclude(first, bcrypt_matches(first.password, first.hash)));
  EXPECT_EQ(auth.prepare("Basic YWxpY2U6czNjcmV0").verdict, AuthCheck::Verdict::Allowed) << "a success is remembered";
  AuthCheck wrong = auth.prepare("Basic YWxpY2U6bm9wZQ==");  // alice:nope
  ASSERT_EQ(wrong.verdict, AuthCheck::Verdict::NeedsBcrypt);
  EXPECT_FALSE(auth.conclude(wrong, false));
  EXPECT_EQ(auth.prepare("Basic YWxpY2U6bm9wZQ==").verdict, AuthCheck::Verdict::NeedsBcrypt) << "a failure is not";
  AuthCheck stranger = auth.prepare("Basic bWFsbG9yeTpzM2NyZXQ=");  // mallory:s3cret
  ASSERT_EQ(stranger.verdict, AuthCheck::Verdict::NeedsBcrypt);
  EXPECT_EQ(stranger.hash, kS3cretHash) << "an unknown user costs the same bcrypt";
  EXPECT_FALSE(auth.conclude(stranger, true)) << "even a matching password of another user lets no stranger in";
}

}  // namespace
}  // namespace gpuwatch::exporter
