// Where checking runs. Today: inline on the message thread. The seam exists
// so a worker-thread scheduler (with debouncing, time limits, cancellation
// and -32801 ContentModified for superseded work) can replace it without
// touching the protocol code; see server/README.md.
#pragma once

#include "argus/dsl/checker.h"
#include "argus/dsl/frontend.h"

#include <functional>
#include <string>

namespace argus::server {

// A consistent copy of one document version, safe to hand to another thread.
struct DocumentSnapshot {
  std::string uri;
  std::string path; // the file path for messages, decoded from the URI
  std::string text;
  int64_t version = 0;
};

class Scheduler {
public:
  using Callback = std::function<void(const DocumentSnapshot &, CheckedFile &)>;

  explicit Scheduler(FrontendOptions options) : options_(std::move(options)) {
    // Kernels an edit did not touch come from the cache, not a new proof.
    options_.cache = &cache_;
  }
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  // Checks `snapshot` and calls `done` with the result. The inline scheduler
  // calls back on the calling (message) thread before returning; a threaded
  // one will call back on a worker and must never call back for a version
  // that a newer update has superseded.
  void check(DocumentSnapshot snapshot, const Callback &done);

  // The checker's options for later checks (the client's configuration).
  const check::CheckerOptions &checker_options() const { return options_.checker; }
  void set_checker_options(const check::CheckerOptions &options) { options_.checker = options; }

private:
  check::CheckCache cache_;
  FrontendOptions options_;
};

} // namespace argus::server
