// Where the long work of the server runs: the front end and the invariant
// checker of each document version, on worker threads. The message loop posts
// jobs and gets the results back through callbacks (which run on the worker;
// the server turns them into tasks of its own loop).
#pragma once

#include "argus/dsl/checker.h"
#include "argus/dsl/driver.h"
#include "argus/server/worker_pool.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace argus::server {

// A consistent copy of one document version, safe to hand to another thread.
struct DocumentSnapshot {
  std::string uri;
  std::string path; // the file path for messages, decoded from the URI
  std::string text;
  int64_t version = 0;
  // The tree of an earlier text of this document told about every edit since
  // (ts_tree_edit), for an incremental reparse; null: parse from scratch.
  std::shared_ptr<const SyntaxTree> edited_tree;
  // The newest version the client sent; a job for an older one is skipped.
  std::shared_ptr<const std::atomic<int64_t>> latest_version;
};

// Everything known about one document version after the invariant checker.
struct FullCheck {
  std::shared_ptr<const CheckedFile> file;
  std::vector<Diagnostic> diagnostics; // the front end's and the checker's, sorted
  bool interrupted = false;            // cut by a deadline (W0901 says so) or a cancel
  std::vector<check::VerificationSummary> verification; // per kernel (hover on its name)
  bool partial = false; // a progress report: some kernels are not checked yet
};

class Scheduler {
public:
  using FrontEndDone = std::function<void(std::shared_ptr<const CheckedFile>)>;
  using CheckDone = std::function<void(FullCheck)>;

  Scheduler(FrontendOptions options, size_t threads);
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  // Parses and type-checks a snapshot (no invariant checker). `done` gets
  // null when a newer version made the job pointless before it started.
  void front_end(DocumentSnapshot snapshot, FrontEndDone done);

  // Runs the invariant checker on a front-end result. Kernels whose text
  // (and the @device functions and constants they see) did not change come
  // from the per-kernel cache. `cancel` stops it early; the time limit gives
  // W0901 for what was not checked. The kernel holding `priority_line` (the
  // last edit) is checked first. While a check runs longer than
  // kFirstProgress, `progress` gets what is known so far (the front end's
  // diagnostics and the kernels done, `partial` set) at most every
  // kProgressInterval: a big file's first results do not wait for its last
  // kernel.
  void check(std::shared_ptr<const CheckedFile> file,
             std::shared_ptr<const std::atomic<bool>> cancel, CheckDone done,
             CheckDone progress = {}, std::optional<uint32_t> priority_line = std::nullopt);
  static constexpr std::chrono::milliseconds kFirstProgress{100};
  static constexpr std::chrono::milliseconds kProgressInterval{250};

  // The checker's options for later checks (the client's configuration).
  const check::CheckerOptions &checker_options() const { return options_.checker; }
  void set_checker_options(const check::CheckerOptions &options) { options_.checker = options; }
  // Wall-clock limit of one document's invariant check.
  std::chrono::milliseconds check_time_limit() const { return check_time_limit_; }
  void set_check_time_limit(std::chrono::milliseconds limit) { check_time_limit_ = limit; }

  // How a command (compile, benchmark, explain) checks a text on its own
  // thread: as the documents are checked (the client's checker settings, the
  // time limit from now, the per-kernel cache: a kernel the editor's check
  // just proved is not proved again), stopped by `cancel`.
  FrontendOptions command_frontend_options(const std::atomic<bool> *cancel) const;
  // The cache those options point into, for the command to keep alive.
  std::shared_ptr<check::CheckCache> cache() const { return cache_; }

  // Runs a command job (argus.compile, argus.benchmark, refactor code
  // actions) on the command threads, apart from the checks so a build never
  // delays a diagnostic. Every worker thread of the server is this class's.
  void command(std::function<void()> job) { commands_.post(std::move(job)); }

private:
  std::shared_ptr<check::CheckCache> cache_ = std::make_shared<check::CheckCache>();
  FrontendOptions options_; // read and written by the message thread only; jobs get copies
  std::chrono::milliseconds check_time_limit_{30000};
  WorkerPool commands_{2}; // compiles and benchmarks
  WorkerPool pool_;        // last: joined before the cache and options go
};

} // namespace argus::server
