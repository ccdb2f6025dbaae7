#include "argus/server/worker_pool.h"

namespace argus::server {

WorkerPool::WorkerPool(size_t threads) {
  if (threads == 0)
    threads = 1;
  for (size_t i = 0; i < threads; ++i)
    threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &thread : threads_)
    thread.join();
}

void WorkerPool::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void WorkerPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty())
        return; // stopping and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    try {
      job();
    } catch (...) {
      // Jobs report their own errors; one that escapes must not end the thread.
    }
  }
}

} // namespace argus::server
