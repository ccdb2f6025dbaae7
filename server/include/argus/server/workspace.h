// The language server's workspace, with no LSP in it (like clangd's
// ClangdServer under ClangdLSPServer): the open documents, byte-range edits,
// the pipeline of each version (front end, then the invariant check, on the
// scheduler's threads) and its typed results. The protocol adapter (Server)
// turns LSP messages into these calls and these results into LSP answers.
//
// Every call is made on one thread, the owner's; the scheduler's workers
// hand results back through `post`, which must run them on that thread, and
// the events below are called there too.
#pragma once

#include "argus/dsl/driver.h"
#include "argus/server/document.h"
#include "argus/server/scheduler.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace argus::server {

struct WorkspaceEvents {
  // The text of `uri` changed (a new version, or a save with other text):
  // results of the old text will not come.
  std::function<void(const std::string &uri, int64_t version)> changed;
  // The front end of `version` is there (`front` holds its diagnostics,
  // marked partial): a first report need not wait for the checker.
  std::function<void(const std::string &uri, int64_t version, const FullCheck &front)>
      front_end_ready;
  // Some kernels of the running check of `version` are done (a big file).
  std::function<void(const std::string &uri, int64_t version, const FullCheck &partial)>
      check_progress;
  // The whole check of `version` is there.
  std::function<void(const std::string &uri, int64_t version, const FullCheck &full)> check_ready;
};

class Workspace {
public:
  using Post = std::function<void(std::function<void()>)>;

  Workspace(FrontendOptions frontend, size_t check_threads,
            std::chrono::milliseconds check_time_limit, Post post, WorkspaceEvents events);
  ~Workspace(); // running checks stop at their next poll
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;

  // Documents. A byte edit replaces [begin, end) of the text the edits before
  // it left; `whole` replaces everything (then `edits` is empty).
  struct ByteEdit {
    size_t begin = 0, end = 0;
    std::string text;
  };
  void open(const std::string &uri, std::string text, int64_t version);
  // False when the document is not open. `edited_line`: the line of the last
  // ranged edit, whose kernel is checked first.
  bool change(const std::string &uri, const std::vector<ByteEdit> &edits,
              std::optional<std::string> whole, int64_t version,
              std::optional<uint32_t> edited_line);
  // A save with text: a change of the same version when the text differs.
  void save(const std::string &uri, const std::string &text);
  bool close(const std::string &uri);
  const Document *find(const std::string &uri) const { return documents_.find(uri); }
  std::vector<std::string> uris() const { return documents_.uris(); }

  // Results of the current text (null when not there yet).
  bool front_ready(const std::string &uri) const;
  bool check_ready(const std::string &uri) const;
  bool all_checked() const;
  std::shared_ptr<const CheckedFile> front(const std::string &uri) const;
  std::shared_ptr<const FullCheck> full(const std::string &uri) const;
  // The diagnostics to show for `check` of `uri`: while an edit is half typed,
  // the lines it did not touch keep the last check without errors.
  std::vector<Diagnostic> shown(const std::string &uri, const FullCheck &check) const;

  // The version counter of `uri` a worker may read to see that its answer
  // is stale (null when not open).
  std::shared_ptr<const std::atomic<int64_t>> latest(const std::string &uri) const;

  // The options changed: every open document is checked again (same versions).
  void check_again();
  // Nothing new starts from now on (the server exits); running checks stop.
  void stop();
  // Jobs started whose results have not come back through `post`.
  int64_t in_flight() const { return in_flight_; }
  Scheduler &scheduler() { return scheduler_; }

private:
  struct State {
    std::shared_ptr<std::atomic<int64_t>> latest = std::make_shared<std::atomic<int64_t>>(0);
    // The last parsed tree told about every edit since: matches the text.
    std::shared_ptr<SyntaxTree> edited_tree;
    std::shared_ptr<const CheckedFile> front; // front end of `front_version`
    int64_t front_version = -1;
    std::shared_ptr<const FullCheck> full; // invariant check of `full_version`
    int64_t full_version = -1;
    std::shared_ptr<const FullCheck> last_good; // the last check without errors
    bool checking = false;
    std::optional<uint32_t> edited_line;
    std::shared_ptr<std::atomic<bool>> cancel; // of the running check
  };

  void version_changed(const std::string &uri);
  void start_front_end(const std::string &uri);
  void front_end_done(const std::string &uri, int64_t version,
                      std::shared_ptr<const CheckedFile> file);
  void start_check(const std::string &uri);
  void check_progress(const std::string &uri, int64_t version, FullCheck partial);
  void check_done(const std::string &uri, int64_t version, FullCheck result);

  Post post_;
  WorkspaceEvents events_;
  DocumentStore documents_;
  std::map<std::string, State> states_;
  int64_t in_flight_ = 0;
  bool stopped_ = false;
  Scheduler scheduler_; // last: destroyed (joined) first
};

// Gives the free memory of closed documents back to the system.
void release_memory();

} // namespace argus::server
