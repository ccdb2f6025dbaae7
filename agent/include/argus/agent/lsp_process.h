// A language server as a subprocess, spoken to over pipes with LSP framing:
// what an editor does. The agent's client (lsp_client.h) and the latency
// benchmark (argus-bench-lsp) are built on it.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace argus::agent {

using Clock = std::chrono::steady_clock;

// One message from the server and when it arrived (read off the pipe).
struct Arrival {
  nlohmann::json message;
  Clock::time_point at;
};

class LspProcess {
public:
  // Starts `program args...`; throws std::runtime_error when it cannot.
  LspProcess(const std::string &program, const std::vector<std::string> &args);
  ~LspProcess();
  LspProcess(const LspProcess &) = delete;
  LspProcess &operator=(const LspProcess &) = delete;

  // Frames and writes one message; returns when it is written.
  Clock::time_point send(const nlohmann::json &message);
  // Sends a request with a fresh id; returns the id.
  int request(const std::string &method, nlohmann::json params);
  void notify(const std::string &method, nlohmann::json params);

  // Removes and returns the first message (in arrival order) for which
  // `wanted` is true; throws std::runtime_error after `timeout` or when the
  // server's output ends.
  Arrival wait_for(const std::function<bool(const nlohmann::json &)> &wanted,
                   std::chrono::milliseconds timeout = std::chrono::minutes(5));
  Arrival wait_for_response(int id);

  // VmRSS of the server process in KiB (from /proc/<pid>/status).
  long resident_kib() const;
  pid_t pid() const { return pid_; }

  // shutdown + exit; returns the exit status (-1 when it did not exit normally).
  int stop();
  // Closes the server's input and waits up to `grace` for it to exit, then
  // kills it; the exit status (-1 when killed or not known).
  int finish(std::chrono::milliseconds grace);
  // The server's output ended (it exited or closed stdout).
  bool ended() const;

private:
  void read_loop();

  pid_t pid_ = -1;
  int to_server_ = -1;
  int from_server_ = -1;
  int next_id_ = 1;
  std::thread reader_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Arrival> inbox_;
  bool ended_ = false;
  std::string read_error_;
};

} // namespace argus::agent
