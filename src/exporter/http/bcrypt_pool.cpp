#include "exporter/http/bcrypt_pool.hpp"

#include <openssl/crypto.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "exporter/http/basic_auth.hpp"

namespace gpuwatch::exporter {

struct BcryptPool::Shared {
  struct Job {
    std::string password;
    std::string hash;
    Done done;
  };
  Hash hash;
  std::size_t max_queued = 0;
  mutable std::mutex mutex;  // jobs, closed
  std::condition_variable wake;
  std::deque<Job> jobs;
  bool closed = false;
  std::mutex deliver_mutex;  // held while a DONE runs, and by close(): none runs after it
  bool delivering = true;
};

namespace {

void wipe(std::string& secret) {
  if (!secret.empty()) OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

// One pool thread: detached, it owns a share of the state, so it may outlive the pool.
void run_bcrypt_worker(std::shared_ptr<BcryptPool::Shared> shared) {
  for (;;) {
    BcryptPool::Shared::Job job;
    {
      std::unique_lock lock(shared->mutex);
      shared->wake.wait(lock, [&] { return shared->closed || !shared->jobs.empty(); });
      if (shared->closed) return;
      job = std::move(shared->jobs.front());
      shared->jobs.pop_front();
    }
    const bool matched = shared->hash(job.password, job.hash);
    wipe(job.password);
    std::lock_guard deliver(shared->deliver_mutex);
    if (shared->delivering) job.done(matched);
  }
}

}  // namespace

BcryptPool::BcryptPool(std::size_t threads, std::size_t max_queued, Hash hash) : shared_(std::make_shared<Shared>()) {
  shared_->hash = hash ? std::move(hash) : Hash(&bcrypt_matches);
  shared_->max_queued = max_queued;
  for (std::size_t i = 0; i < (threads == 0 ? 1 : threads); ++i) std::thread(run_bcrypt_worker, shared_).detach();
}

BcryptPool::~BcryptPool() { close(); }

bool BcryptPool::submit(std::string password, std::string hash, Done done) {
  {
    std::lock_guard lock(shared_->mutex);
    if (!shared_->closed && shared_->jobs.size() < shared_->max_queued) {
      shared_->jobs.push_back(Shared::Job{std::move(password), std::move(hash), std::move(done)});
      shared_->wake.notify_one();
      return true;
    }
  }
  wipe(password);
  return false;
}

void BcryptPool::close() {
  std::deque<Shared::Job> dropped;
  {
    std::lock_guard lock(shared_->mutex);
    shared_->closed = true;
    dropped.swap(shared_->jobs);
  }
  shared_->wake.notify_all();
  for (auto& job : dropped) wipe(job.password);
  std::lock_guard deliver(shared_->deliver_mutex);
  shared_->delivering = false;
}

std::size_t BcryptPool::queued() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->jobs.size();
}

}  // namespace gpuwatch::exporter
