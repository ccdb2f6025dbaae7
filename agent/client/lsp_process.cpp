#include "argus/agent/lsp_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace argus::agent {
namespace {

using nlohmann::json;

void write_all(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw std::runtime_error(std::string("writing to the server failed: ") +
                               std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

} // namespace

LspProcess::LspProcess(const std::string &program, const std::vector<std::string> &args) {
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  std::vector<std::string> storage{program};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &s : storage)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  const int rc = posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  to_server_ = in_pipe[1];
  from_server_ = out_pipe[0];
  if (rc != 0) {
    ::close(to_server_);
    ::close(from_server_);
    throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc));
  }
  // A server that dies must not kill us with SIGPIPE on the next write.
  std::signal(SIGPIPE, SIG_IGN);
  reader_ = std::thread([this] { read_loop(); });
}

LspProcess::~LspProcess() {
  if (to_server_ >= 0)
    ::close(to_server_);
  if (pid_ > 0) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }
  if (reader_.joinable())
    reader_.join();
  if (from_server_ >= 0)
    ::close(from_server_);
}

Clock::time_point LspProcess::send(const json &message) {
  const std::string body = message.dump();
  const Clock::time_point at = Clock::now();
  write_all(to_server_, "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  return at;
}

int LspProcess::request(const std::string &method, json params) {
  const int id = next_id_++;
  send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  return id;
}

void LspProcess::notify(const std::string &method, json params) {
  send(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void LspProcess::read_loop() {
  std::string buffer;
  char chunk[1 << 16];
  auto fail = [&](std::string why) {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
    read_error_ = std::move(why);
    arrived_.notify_all();
  };
  for (;;) {
    // Take every complete frame out of the buffer.
    for (;;) {
      const size_t header_end = buffer.find("\r\n\r\n");
      if (header_end == std::string::npos)
        break;
      const size_t key = buffer.find("Content-Length: ");
      if (key != 0 || key > header_end)
        return fail("bad header from the server: " + buffer.substr(0, header_end));
      size_t length = 0;
      json message;
      try {
        length = std::stoul(buffer.substr(16, header_end - 16));
        if (buffer.size() < header_end + 4 + length)
          break;
        message = json::parse(buffer.substr(header_end + 4, length));
      } catch (const std::exception &error) {
        return fail(std::string("a frame from the server that is not JSON-RPC: ") + error.what());
      }
      Arrival arrival{std::move(message), Clock::now()};
      buffer.erase(0, header_end + 4 + length);
      std::lock_guard<std::mutex> lock(mutex_);
      inbox_.push_back(std::move(arrival));
      arrived_.notify_all();
    }
    const ssize_t n = ::read(from_server_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail("the server's output ended");
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

Arrival LspProcess::wait_for(const std::function<bool(const json &)> &wanted,
                             std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const Clock::time_point deadline = Clock::now() + timeout;
  size_t seen = 0;
  for (;;) {
    for (; seen < inbox_.size(); ++seen)
      if (wanted(inbox_[seen].message)) {
        Arrival found = std::move(inbox_[seen]);
        inbox_.erase(inbox_.begin() + static_cast<std::ptrdiff_t>(seen));
        return found;
      }
    if (ended_)
      throw std::runtime_error(read_error_);
    if (arrived_.wait_until(lock, deadline) == std::cv_status::timeout && seen == inbox_.size())
      throw std::runtime_error("timed out waiting for the server");
  }
}

Arrival LspProcess::wait_for_response(int id) {
  Arrival a = wait_for([id](const json &m) { return m.contains("id") && m["id"] == id; });
  if (a.message.contains("error"))
    throw std::runtime_error("request " + std::to_string(id) + " failed: " + a.message.dump());
  return a;
}

long LspProcess::resident_kib() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:"))
      return std::stol(line.substr(6));
  return -1;
}

bool LspProcess::ended() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ended_;
}

int LspProcess::finish(std::chrono::milliseconds grace) {
  if (to_server_ >= 0) {
    ::close(to_server_);
    to_server_ = -1;
  }
  if (pid_ <= 0)
    return -1;
  const Clock::time_point deadline = Clock::now() + grace;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_)
      break;
    if (r < 0 || Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int LspProcess::stop() {
  wait_for_response(request("shutdown", nullptr));
  notify("exit", nullptr);
  ::close(to_server_);
  to_server_ = -1;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace argus::agent
