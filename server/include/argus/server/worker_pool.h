// Threads that run the server's long work (front end, invariant checks,
// compiles) so the message loop stays responsive.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace argus::server {

class WorkerPool {
public:
  // `threads` of at least one.
  explicit WorkerPool(size_t threads);
  // Runs what is still queued, then joins: callers cancel long jobs first.
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  // Queues `job`; jobs start in order, on whichever thread is free. A job
  // that throws is a bug: the exception is swallowed so the thread survives.
  void post(std::function<void()> job);

  size_t threads() const { return threads_.size(); }

private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// A queue that blocks its reader until something arrives (the message loop's
// inbox: client messages from the reader thread, results from workers).
template <typename T> class BlockingQueue {
public:
  void push(T value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(std::move(value));
    }
    wake_.notify_one();
  }
  T pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return !items_.empty(); });
    T value = std::move(items_.front());
    items_.pop_front();
    return value;
  }

private:
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<T> items_;
};

} // namespace argus::server
