// The LSP-free workspace: workspace.h.
#include "argus/server/workspace.h"

#include "argus/dsl/edit_confinement.h"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace argus::server {

// A closed document's text, trees and checks were allocated by worker
// threads in their own malloc arenas; freed, they stay mapped until glibc is
// asked to give free pages back (a 3.9 MB document opened and closed kept
// ~970 MB resident without this).
void release_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

Workspace::Workspace(FrontendOptions frontend, size_t check_threads,
                     std::chrono::milliseconds check_time_limit, Post post, WorkspaceEvents events)
    : post_(std::move(post)), events_(std::move(events)),
      scheduler_(std::move(frontend), std::max<size_t>(1, check_threads)) {
  scheduler_.set_check_time_limit(check_time_limit);
}

Workspace::~Workspace() {
  for (auto &[uri, state] : states_)
    if (state.cancel)
      state.cancel->store(true);
}

void Workspace::open(const std::string &uri, std::string text, int64_t version) {
  documents_.open(uri, std::move(text), version);
  states_[uri].edited_tree.reset(); // a reopened document starts from scratch
  version_changed(uri);
}

bool Workspace::change(const std::string &uri, const std::vector<ByteEdit> &edits,
                       std::optional<std::string> whole, int64_t version,
                       std::optional<uint32_t> edited_line) {
  Document *document = documents_.find(uri);
  if (document == nullptr)
    return false;
  State &state = states_[uri];
  std::string text = whole ? std::move(*whole) : document->text;
  std::vector<TSInputEdit> tree_edits;
  for (const ByteEdit &e : edits) {
    const size_t begin = std::min(e.begin, text.size());
    const size_t end = std::clamp(e.end, begin, text.size());
    tree_edits.push_back(input_edit(text, begin, end, e.text));
    text.replace(begin, end - begin, e.text);
  }
  if (whole)
    state.edited_tree.reset();
  if (state.edited_tree) {
    // Edit a copy: the old tree may still be read by a job or a handler.
    auto edited = std::make_shared<SyntaxTree>(state.edited_tree->copy());
    for (const TSInputEdit &edit : tree_edits)
      edited->edit(edit);
    state.edited_tree = std::move(edited);
  }
  document->text = std::move(text);
  document->version = version;
  state.edited_line = edited_line;
  version_changed(uri);
  return true;
}

void Workspace::save(const std::string &uri, const std::string &text) {
  Document *document = documents_.find(uri);
  if (document == nullptr || text == document->text)
    return;
  document->text = text;
  State &state = states_[uri];
  state.edited_tree.reset();
  // Same version, other text: the results of the old text are not current.
  state.front.reset();
  state.front_version = -1;
  state.full.reset();
  state.full_version = -1;
  version_changed(uri);
}

bool Workspace::close(const std::string &uri) {
  if (!documents_.close(uri))
    return false;
  if (auto it = states_.find(uri); it != states_.end()) {
    if (it->second.cancel)
      it->second.cancel->store(true);
    states_.erase(it);
  }
  release_memory();
  return true;
}

bool Workspace::front_ready(const std::string &uri) const {
  const Document *document = documents_.find(uri);
  const auto it = states_.find(uri);
  return document && it != states_.end() && it->second.front &&
         it->second.front_version == document->version;
}

bool Workspace::check_ready(const std::string &uri) const {
  const Document *document = documents_.find(uri);
  const auto it = states_.find(uri);
  return document && it != states_.end() && it->second.full &&
         it->second.full_version == document->version;
}

bool Workspace::all_checked() const {
  for (const std::string &uri : documents_.uris())
    if (!check_ready(uri))
      return false;
  return true;
}

std::shared_ptr<const CheckedFile> Workspace::front(const std::string &uri) const {
  return front_ready(uri) ? states_.at(uri).front : nullptr;
}

std::shared_ptr<const FullCheck> Workspace::full(const std::string &uri) const {
  return check_ready(uri) ? states_.at(uri).full : nullptr;
}

std::shared_ptr<const std::atomic<int64_t>> Workspace::latest(const std::string &uri) const {
  const auto it = states_.find(uri);
  return it == states_.end() ? nullptr : it->second.latest;
}

std::vector<Diagnostic> Workspace::shown(const std::string &uri, const FullCheck &check) const {
  const auto it = states_.find(uri);
  if (it == states_.end() || !it->second.last_good || !check.file || !check.file->source ||
      it->second.last_good.get() == &check)
    return check.diagnostics;
  const FullCheck &good = *it->second.last_good;
  return confine_to_edit(check.diagnostics, check.file->source->text(), good.diagnostics,
                         good.file->source->text());
}

void Workspace::check_again() {
  for (auto &[uri, state] : states_) {
    state.full.reset();
    state.full_version = -1;
    if (state.cancel)
      state.cancel->store(true);
    start_check(uri);
  }
}

void Workspace::stop() {
  stopped_ = true;
  for (auto &[uri, state] : states_)
    if (state.cancel)
      state.cancel->store(true);
}

// A new version: a running check of the old one stops, and the new text goes
// to the front end at once.
void Workspace::version_changed(const std::string &uri) {
  const Document *document = documents_.find(uri);
  State &state = states_[uri];
  state.latest->store(document->version);
  if (events_.changed)
    events_.changed(uri, document->version);
  if (state.cancel)
    state.cancel->store(true);
  start_front_end(uri);
}

void Workspace::start_front_end(const std::string &uri) {
  const Document *document = documents_.find(uri);
  State &state = states_[uri];
  DocumentSnapshot snapshot{
      uri, uri_to_path(uri), document->text, document->version, state.edited_tree, state.latest};
  ++in_flight_;
  const int64_t version = document->version;
  scheduler_.front_end(std::move(snapshot),
                       [this, uri, version](std::shared_ptr<const CheckedFile> file) {
                         post_([this, uri, version, file = std::move(file)]() mutable {
                           front_end_done(uri, version, std::move(file));
                         });
                       });
}

void Workspace::front_end_done(const std::string &uri, int64_t version,
                               std::shared_ptr<const CheckedFile> file) {
  --in_flight_;
  const Document *document = documents_.find(uri);
  auto it = states_.find(uri);
  // A save can change the text without a new version: the text decides too.
  if (!file || document == nullptr || it == states_.end() || document->version != version ||
      file->source->text() != document->text)
    return; // superseded or closed: a newer job is on its way
  State &state = it->second;
  state.front = std::move(file);
  state.front_version = version;
  if (state.front->tree)
    state.edited_tree = std::make_shared<SyntaxTree>(state.front->tree->copy());
  if (events_.front_end_ready) {
    FullCheck front;
    front.file = state.front;
    front.diagnostics = state.front->diagnostics;
    front.partial = true;
    events_.front_end_ready(uri, version, front);
  }
  start_check(uri);
}

void Workspace::start_check(const std::string &uri) {
  const Document *document = documents_.find(uri);
  if (document == nullptr)
    return;
  State &state = states_[uri];
  if (stopped_ || state.checking || !state.front || state.front_version != document->version ||
      state.full_version == document->version)
    return; // after stop() nothing new starts: the server is draining
  state.checking = true;
  state.cancel = std::make_shared<std::atomic<bool>>(false);
  ++in_flight_;
  const int64_t version = document->version;
  scheduler_.check(
      state.front, state.cancel,
      [this, uri, version](FullCheck result) {
        post_([this, uri, version, result = std::move(result)]() mutable {
          check_done(uri, version, std::move(result));
        });
      },
      [this, uri, version](FullCheck partial) {
        post_([this, uri, version, partial = std::move(partial)]() mutable {
          check_progress(uri, version, std::move(partial));
        });
      },
      state.edited_line);
}

void Workspace::check_progress(const std::string &uri, int64_t version, FullCheck partial) {
  const Document *document = documents_.find(uri);
  auto it = states_.find(uri);
  if (document == nullptr || it == states_.end() || !it->second.checking ||
      document->version != version || (it->second.cancel && it->second.cancel->load()) ||
      partial.file->source->text() != document->text)
    return;
  if (events_.check_progress)
    events_.check_progress(uri, version, partial);
}

void Workspace::check_done(const std::string &uri, int64_t version, FullCheck result) {
  --in_flight_;
  const Document *document = documents_.find(uri);
  auto it = states_.find(uri);
  if (document == nullptr || it == states_.end()) {
    result = FullCheck{}; // the check of a closed document: its memory goes back now
    release_memory();
    return;
  }
  State &state = it->second;
  state.checking = false;
  const bool cancelled = state.cancel && state.cancel->load();
  if (document->version == version && !cancelled && result.file->source->text() == document->text) {
    state.full = std::make_shared<const FullCheck>(std::move(result));
    state.full_version = version;
    if (std::none_of(state.full->diagnostics.begin(), state.full->diagnostics.end(),
                     [](const Diagnostic &d) { return d.severity == Severity::Error; }))
      state.last_good = state.full;
    if (events_.check_ready)
      events_.check_ready(uri, version, *state.full);
  }
  start_check(uri); // the current version, when this one was superseded
}

} // namespace argus::server
