// Soak test of the real `argus lsp`: a subprocess on pipes gets the examples
// opened and then thousands of random incremental edits (inserts, deletes,
// replacements, undo-like inverses, non-ASCII text, full-text resets,
// close/reopen) interleaved with every request kind the server advertises in
// its initialize capabilities, some of them cancelled. Every answer is
// validated:
//   - each request gets exactly one response with its id (answers may come in
//     any order); an error has a known code (-32800 only after a cancel,
//     -32801 always, -32602 only for deliberately bad requests);
//   - publishDiagnostics versions never go backwards per document, and the
//     last version sent is eventually published;
//   - every range in a result (and every diagnostic) lies inside the document
//     text it was computed for;
// and the session ends with shutdown + exit → exit status 0, within a
// wall-clock limit.
//
// Usage: argus_lsp_soak ARGUS_BINARY EXAMPLES_DIR [--seed N] [--edits N]
//                       [--time-limit SECONDS] [--checker JSON]
// The seed (random unless given, or ARGUS_SOAK_SEED) is printed first.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <poll.h>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Error codes the driver understands.
constexpr int kInvalidParams = -32602;
constexpr int kRequestCancelled = -32800;
constexpr int kContentModified = -32801;
constexpr int kRequestFailed = -32803;

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &what) { throw Failure(what); }

// ---- Text model: UTF-8 text, LSP positions in UTF-16 or UTF-8 units -------

bool utf16 = true; // the negotiated position encoding

bool is_boundary(const std::string &text, size_t i) {
  return i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
}

size_t code_point_bytes(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Units of the code point starting at `lead` in the negotiated encoding.
uint32_t units_of(unsigned char lead) {
  if (!utf16)
    return static_cast<uint32_t>(code_point_bytes(lead));
  return code_point_bytes(lead) == 4 ? 2 : 1;
}

json position_of(const std::string &text, size_t offset) {
  uint32_t line = 0, character = 0;
  for (size_t i = 0; i < offset && i < text.size();) {
    if (text[i] == '\n') {
      ++line;
      character = 0;
      ++i;
      continue;
    }
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    character += units_of(lead);
    i += code_point_bytes(lead);
  }
  return {{"line", line}, {"character", character}};
}

// One version of a document as the driver sent it.
struct Version {
  std::string text;
  std::vector<uint32_t> line_units; // length of each line in the negotiated unit

  explicit Version(std::string t) : text(std::move(t)) {
    line_units.push_back(0);
    for (size_t i = 0; i < text.size();) {
      if (text[i] == '\n') {
        line_units.push_back(0);
        ++i;
        continue;
      }
      const unsigned char lead = static_cast<unsigned char>(text[i]);
      line_units.back() += units_of(lead);
      i += code_point_bytes(lead);
    }
  }

  bool contains(const json &position) const {
    if (!position.is_object() || !position.contains("line") || !position.contains("character"))
      return false;
    const json &line = position["line"], &character = position["character"];
    if (!line.is_number_unsigned() && !line.is_number_integer())
      return false;
    if (!character.is_number_unsigned() && !character.is_number_integer())
      return false;
    const int64_t l = line.get<int64_t>(), c = character.get<int64_t>();
    return l >= 0 && c >= 0 && l < static_cast<int64_t>(line_units.size()) &&
           c <= static_cast<int64_t>(line_units[static_cast<size_t>(l)]);
  }

  static bool before_or_at(const json &a, const json &b) {
    const auto key = [](const json &p) {
      return std::pair(p["line"].get<int64_t>(), p["character"].get<int64_t>());
    };
    return key(a) <= key(b);
  }

  // Why `range` is not a range inside this text; empty when it is.
  std::string range_problem(const json &range) const {
    if (!contains(range.value("start", json())) || !contains(range.value("end", json())))
      return "range outside the document (" + std::to_string(line_units.size()) +
             " lines): " + range.dump();
    if (!before_or_at(range["start"], range["end"]))
      return "reversed range: " + range.dump();
    return {};
  }
};

bool looks_like_position(const json &value) {
  return value.is_object() && value.size() == 2 && value.contains("line") &&
         value.contains("character");
}

bool looks_like_range(const json &value) {
  return value.is_object() && value.contains("start") && value.contains("end") &&
         looks_like_position(value["start"]) && looks_like_position(value["end"]);
}

// Every range (and lone position) in `value` that belongs to `uri`: parts
// naming another URI are skipped. Returns the first problem, or empty.
std::string ranges_problem(const json &value, const std::string &uri, const Version &version) {
  if (value.is_array()) {
    for (const json &item : value)
      if (std::string p = ranges_problem(item, uri, version); !p.empty())
        return p;
    return {};
  }
  if (!value.is_object())
    return {};
  if (value.contains("uri") && value["uri"].is_string() && value["uri"] != uri)
    return {};
  if (looks_like_range(value))
    return version.range_problem(value);
  for (const auto &[key, item] : value.items()) {
    if (key.find("://") != std::string::npos && key != uri)
      continue; // WorkspaceEdit.changes of another document
    if (looks_like_position(item)) {
      if (!version.contains(item))
        return "position outside the document: " + item.dump();
      continue;
    }
    if (std::string p = ranges_problem(item, uri, version); !p.empty())
      return p;
  }
  return {};
}

// Semantic tokens: 5-tuples relative to the previous token, inside lines.
std::string semantic_tokens_problem(const json &result, const Version &version) {
  if (result.is_null())
    return {};
  const json data = result.value("data", json());
  if (!data.is_array() || data.size() % 5 != 0)
    return "semantic tokens data is not a list of 5-tuples";
  int64_t line = 0, start = 0;
  for (size_t i = 0; i < data.size(); i += 5) {
    const int64_t dl = data[i].get<int64_t>(), ds = data[i + 1].get<int64_t>();
    const int64_t length = data[i + 2].get<int64_t>();
    line += dl;
    start = dl == 0 ? start + ds : ds;
    if (line >= static_cast<int64_t>(version.line_units.size()) ||
        start + length > static_cast<int64_t>(version.line_units[static_cast<size_t>(line)]))
      return "semantic token outside its line: line " + std::to_string(line) + " start " +
             std::to_string(start) + " length " + std::to_string(length);
  }
  return {};
}

// ---- The server process --------------------------------------------------

class ServerProcess {
public:
  ServerProcess(const std::string &binary, Clock::time_point deadline) : deadline_(deadline) {
    int in[2], out[2], err[2];
    if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0)
      fail(std::string("pipe: ") + std::strerror(errno));
    pid_ = fork();
    if (pid_ < 0)
      fail(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
        close(fd);
      execl(binary.c_str(), binary.c_str(), "lsp", static_cast<char *>(nullptr));
      std::perror("execl");
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
    for (int fd : {stdin_, stdout_, stderr_})
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }

  ~ServerProcess() {
    for (int fd : {stdin_, stdout_, stderr_})
      if (fd >= 0)
        close(fd);
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  void send(const json &message) {
    const std::string body = message.dump();
    outgoing_ += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  void close_stdin() { close_after_flush_ = true; }
  size_t unsent() const { return outgoing_.size(); }

  // Moves bytes for at most `wait_ms` (0: only what is ready); complete
  // messages go to `on_message`. False once the server closed its stdout.
  bool pump(int wait_ms, const std::function<void(const json &)> &on_message) {
    if (Clock::now() > deadline_)
      fail("wall-clock limit reached (a hang?)");
    pollfd fds[3];
    nfds_t count = 0;
    const bool want_write = stdin_ >= 0 && !outgoing_.empty();
    if (want_write)
      fds[count++] = {stdin_, POLLOUT, 0};
    const nfds_t out_index = count;
    if (stdout_ >= 0)
      fds[count++] = {stdout_, POLLIN, 0};
    const nfds_t err_index = count;
    if (stderr_ >= 0)
      fds[count++] = {stderr_, POLLIN, 0};
    if (count == 0)
      return false;
    if (poll(fds, count, wait_ms) < 0 && errno != EINTR)
      fail(std::string("poll: ") + std::strerror(errno));
    if (want_write && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(stdin_, outgoing_.data(), outgoing_.size());
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        fail(std::string("the server stopped reading its stdin: ") + std::strerror(errno));
      if (n > 0)
        outgoing_.erase(0, static_cast<size_t>(n));
    }
    if (stdin_ >= 0 && close_after_flush_ && outgoing_.empty()) {
      close(stdin_);
      stdin_ = -1;
    }
    char buffer[65536];
    if (stderr_ >= 0 && (fds[err_index].revents & (POLLIN | POLLHUP))) {
      const ssize_t n = read(stderr_, buffer, sizeof buffer);
      if (n > 0) {
        log_.append(buffer, static_cast<size_t>(n));
        if (log_.size() > (1u << 20))
          log_.erase(0, log_.size() - (1u << 19));
      } else if (n == 0) {
        close(stderr_);
        stderr_ = -1;
      }
    }
    if (stdout_ >= 0 && (fds[out_index].revents & (POLLIN | POLLHUP))) {
      const ssize_t n = read(stdout_, buffer, sizeof buffer);
      if (n > 0) {
        incoming_.append(buffer, static_cast<size_t>(n));
        split_messages(on_message);
      } else if (n == 0) {
        close(stdout_);
        stdout_ = -1;
        if (!incoming_.empty())
          fail("the server's stdout ended inside a frame");
      }
    }
    return stdout_ >= 0;
  }

  // The exit status once the process ended (waits up to the deadline).
  int wait_exit() {
    for (;;) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        reaped_ = true;
        if (WIFSIGNALED(status))
          fail("the server was killed by signal " + std::to_string(WTERMSIG(status)));
        return WEXITSTATUS(status);
      }
      if (Clock::now() > deadline_)
        fail("the server did not exit before the wall-clock limit");
      usleep(10'000);
    }
  }

  std::string log_tail() const {
    return log_.size() > 6000 ? log_.substr(log_.size() - 6000) : log_;
  }

private:
  void split_messages(const std::function<void(const json &)> &on_message) {
    constexpr std::string_view kHeader = "Content-Length: ";
    for (;;) {
      const size_t header_end = incoming_.find("\r\n\r\n");
      if (header_end == std::string::npos)
        return;
      if (incoming_.compare(0, kHeader.size(), kHeader) != 0)
        fail("bad frame header from the server: " + incoming_.substr(0, 80));
      const size_t length = std::stoul(incoming_.substr(kHeader.size(), header_end));
      const size_t body = header_end + 4;
      if (incoming_.size() < body + length)
        return;
      json message = json::parse(incoming_.substr(body, length), nullptr, false);
      if (message.is_discarded())
        fail("a frame body that is not JSON: " +
             incoming_.substr(body, std::min<size_t>(200, length)));
      incoming_.erase(0, body + length);
      on_message(message);
    }
  }

  Clock::time_point deadline_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  bool close_after_flush_ = false;
  std::string outgoing_, incoming_, log_;
};

// ---- The driver ----------------------------------------------------------

enum class Params {
  Document,
  Position,
  Range,
  CodeAction,
  References,
  Rename,
  SelectionRange,
  Formatting,
  RangeFormatting,
  WorkspaceSymbol,
};

struct Method {
  std::string name;
  Params params;
};

// The requests this driver can form, from initialize's capabilities; the
// capabilities it has no request for are listed in `unknown`.
std::vector<Method> advertised_methods(const json &capabilities,
                                       std::vector<std::string> &unknown) {
  std::vector<Method> methods;
  const auto on = [&](const char *key) {
    return capabilities.contains(key) && !capabilities[key].is_null() && capabilities[key] != false;
  };
  const std::map<std::string, Method> simple = {
      {"hoverProvider", {"textDocument/hover", Params::Position}},
      {"documentSymbolProvider", {"textDocument/documentSymbol", Params::Document}},
      {"diagnosticProvider", {"textDocument/diagnostic", Params::Document}},
      {"codeActionProvider", {"textDocument/codeAction", Params::CodeAction}},
      {"definitionProvider", {"textDocument/definition", Params::Position}},
      {"declarationProvider", {"textDocument/declaration", Params::Position}},
      {"typeDefinitionProvider", {"textDocument/typeDefinition", Params::Position}},
      {"implementationProvider", {"textDocument/implementation", Params::Position}},
      {"referencesProvider", {"textDocument/references", Params::References}},
      {"documentHighlightProvider", {"textDocument/documentHighlight", Params::Position}},
      {"completionProvider", {"textDocument/completion", Params::Position}},
      {"signatureHelpProvider", {"textDocument/signatureHelp", Params::Position}},
      {"inlayHintProvider", {"textDocument/inlayHint", Params::Range}},
      {"foldingRangeProvider", {"textDocument/foldingRange", Params::Document}},
      {"selectionRangeProvider", {"textDocument/selectionRange", Params::SelectionRange}},
      {"documentFormattingProvider", {"textDocument/formatting", Params::Formatting}},
      {"documentRangeFormattingProvider",
       {"textDocument/rangeFormatting", Params::RangeFormatting}},
      {"codeLensProvider", {"textDocument/codeLens", Params::Document}},
      {"documentLinkProvider", {"textDocument/documentLink", Params::Document}},
      {"workspaceSymbolProvider", {"workspace/symbol", Params::WorkspaceSymbol}},
  };
  for (const auto &[key, value] : capabilities.items()) {
    if (!on(key.c_str()))
      continue;
    if (auto it = simple.find(key); it != simple.end()) {
      methods.push_back(it->second);
    } else if (key == "renameProvider") {
      methods.push_back({"textDocument/rename", Params::Rename});
      if (value.is_object() && value.value("prepareProvider", false))
        methods.push_back({"textDocument/prepareRename", Params::Position});
    } else if (key == "semanticTokensProvider") {
      if (value.is_object() && value.contains("full") && value["full"] != false)
        methods.push_back({"textDocument/semanticTokens/full", Params::Document});
      if (value.is_object() && value.value("range", false))
        methods.push_back({"textDocument/semanticTokens/range", Params::Range});
    } else if (key != "positionEncoding" && key != "textDocumentSync") {
      unknown.push_back(key);
    }
  }
  return methods;
}

// Replacing [from, from + inserted) by `removed` undoes a change.
struct Inverse {
  size_t from = 0;
  size_t inserted = 0;
  std::string removed;
};

struct Document {
  std::string uri;
  std::string original;
  std::string text;
  int64_t version = 1;
  bool open = true;
  int closes = 0;        // close count, so a request can tell it was overtaken
  int64_t published = 0; // last version in publishDiagnostics
  std::map<int64_t, std::shared_ptr<const Version>> versions; // sent, still referenced
  std::optional<Inverse> inverse;                             // undoes the last change
};

struct Pending {
  std::string method;
  size_t document = 0;
  int64_t version = 0;
  int closes = 0;
  bool cancelled = false;
  bool deliberately_bad = false;
};

struct Stats {
  int edits = 0, changes = 0, resets = 0, reopens = 0, cancels = 0, publishes = 0;
  int cancelled = 0, content_modified = 0, bad = 0;
  std::map<std::string, int> requests;
};

const std::vector<std::string> kSnippets = {
    " ",
    "\n",
    "\n    ",
    "    ",
    "x",
    "t",
    "i",
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    " + ",
    " * ",
    " = ",
    "0",
    "1",
    "64",
    "f32",
    "thread_id()",
    "syncthreads()\n    ",
    "for i in range(4):\n    ",
    "if t < 32:\n        ",
    "return",
    "# é comment\n",
    "λ",
    "é",
    "中文",
    "😀",
    "e\u0301",
    "ß",
    "@kernel(grid=1, block=64)\n",
    "def f(X: Tensor((64,), f32)):\n    ",
    "\"str\"",
    "'",
    "\\",
    "\t",
    "𝒜𝒷",
};

class Soak {
public:
  Soak(std::mt19937_64 &random, ServerProcess &server, Stats &stats)
      : random_(random), server_(server), stats_(stats) {}

  void initialize(const json &checker) {
    const bool offer_utf8 = chance(0.5);
    json capabilities = {{"textDocument", {{"publishDiagnostics", {{"versionSupport", true}}}}}};
    if (offer_utf8)
      capabilities["general"] = {{"positionEncodings", {"utf-8", "utf-16"}}};
    const int64_t id = next_id_++;
    initialize_id_ = id;
    server_.send({{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "initialize"},
                  {"params",
                   {{"processId", nullptr},
                    {"capabilities", capabilities},
                    {"initializationOptions", {{"checker", checker}}}}}});
    wait_for([&] { return initialize_result_.has_value(); }, 60'000, id);
    const json result = *initialize_result_;
    const json caps = result.value("capabilities", json::object());
    const std::string encoding = caps.value("positionEncoding", "utf-16");
    if (encoding != "utf-16" && encoding != "utf-8")
      fail("unknown positionEncoding " + encoding);
    if (!offer_utf8 && encoding != "utf-16")
      fail("utf-8 chosen although the client did not offer it");
    utf16 = encoding == "utf-16";
    std::vector<std::string> unknown;
    methods_ = advertised_methods(caps, unknown);
    std::cout << "position encoding " << encoding << "; requests:";
    for (const Method &m : methods_)
      std::cout << ' ' << m.name;
    std::cout << '\n';
    if (!unknown.empty()) {
      std::cout << "capabilities without a request here:";
      for (const std::string &key : unknown)
        std::cout << ' ' << key;
      std::cout << '\n';
    }
    if (methods_.empty())
      fail("the server advertises no request this driver can send");
    server_.send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
  }

  void open(const std::string &uri, const std::string &text) {
    Document d;
    d.uri = uri;
    d.original = d.text = text;
    docs_.push_back(std::move(d));
    send_open(docs_.size() - 1);
  }

  void run(int edits) {
    for (int step = 0; step < edits; ++step) {
      const size_t doc = pick(docs_.size());
      Document &d = docs_[doc];
      if (!d.open) {
        send_open(doc);
        ++stats_.reopens;
      } else if (chance(0.004)) {
        send_close(doc);
      } else if (chance(0.01)) {
        reset(doc);
      } else {
        edit(doc);
      }
      const int requests = chance(0.6) ? 1 + static_cast<int>(pick(3)) : 0;
      for (int r = 0; r < requests; ++r)
        send_request(chance(0.03) ? pick(docs_.size()) : doc);
      if (chance(0.01))
        send_bad_request();
      if (chance(0.05) && !pending_.empty()) // a cancel that may come too late
        cancel(std::next(pending_.begin(), static_cast<long>(pick(pending_.size())))->first);
      server_.pump(0, handler());
      // Bounded backlog; now and then let everything drain.
      if (pending_.size() > 24 || server_.unsent() > (256u << 10) || chance(0.03)) {
        const size_t backlog = chance(0.5) ? 0 : 8; // drawn once: the seed replays the run
        wait_for([&] { return pending_.size() <= backlog; }, 120'000, -1);
      }
      if (step % 200 == 0)
        prune();
    }
  }

  void finish() {
    wait_for([&] { return pending_.empty(); }, 120'000, -1);
    // The last version of every open document is published eventually.
    wait_for(
        [&] {
          return std::all_of(docs_.begin(), docs_.end(),
                             [](const Document &d) { return !d.open || d.published == d.version; });
        },
        120'000, -1);
    const int64_t id = next_id_++;
    server_.send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "shutdown"}});
    shutdown_id_ = id;
    wait_for([&] { return shutdown_answered_; }, 60'000, id);
    server_.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    server_.close_stdin();
    while (server_.pump(100, handler())) {
    }
    if (!pending_.empty())
      fail(std::to_string(pending_.size()) + " requests never answered, e.g. id " +
           std::to_string(pending_.begin()->first) + " (" + pending_.begin()->second.method + ")");
  }

private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  size_t pick(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(random_);
  }

  std::function<void(const json &)> handler() {
    return [this](const json &message) { on_message(message); };
  }

  void wait_for(const std::function<bool()> &done, int timeout_ms, int64_t about) {
    const auto until = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done()) {
      if (Clock::now() > until)
        fail("no progress for " + std::to_string(timeout_ms / 1000) + " s (waiting" +
             (about >= 0 ? " for id " + std::to_string(about) : std::string()) + ", " +
             std::to_string(pending_.size()) + " requests pending)");
      if (!server_.pump(50, handler()) && !done())
        fail("the server closed its stdout early");
    }
  }

  size_t random_offset(const std::string &text) {
    size_t at = pick(text.size() + 1);
    while (!is_boundary(text, at))
      ++at;
    return at;
  }

  void remember_version(Document &d) {
    d.versions[d.version] = std::make_shared<const Version>(d.text);
  }

  void send_open(size_t doc) {
    Document &d = docs_[doc];
    if (d.open && d.versions.count(d.version)) // the first open
      fail("internal: document opened twice");
    ++d.version; // a reopen continues the versions: they never go backwards
    d.text = d.original;
    d.open = true;
    d.inverse.reset();
    remember_version(d);
    server_.send({{"jsonrpc", "2.0"},
                  {"method", "textDocument/didOpen"},
                  {"params",
                   {{"textDocument",
                     {{"uri", d.uri},
                      {"languageId", "argus"},
                      {"version", d.version},
                      {"text", d.text}}}}}});
  }

  void send_close(size_t doc) {
    Document &d = docs_[doc];
    d.open = false;
    ++d.closes;
    server_.send({{"jsonrpc", "2.0"},
                  {"method", "textDocument/didClose"},
                  {"params", {{"textDocument", {{"uri", d.uri}}}}}});
  }

  void reset(size_t doc) {
    Document &d = docs_[doc];
    d.text = d.original;
    d.inverse.reset();
    ++d.version;
    remember_version(d);
    ++stats_.resets;
    send_changes(d, json::array({{{"text", d.text}}}));
  }

  // One didChange of 1-3 incremental changes, each against the text the
  // previous one left (LSP applies them in order).
  void edit(size_t doc) {
    Document &d = docs_[doc];
    json changes = json::array();
    const int count = chance(0.8) ? 1 : 2 + static_cast<int>(pick(2));
    for (int c = 0; c < count; ++c) {
      size_t from, to;
      std::string insert;
      if (c == 0 && d.inverse && chance(0.35)) {
        // Undo the previous edit: the text returns to one the checker saw.
        from = d.inverse->from;
        to = from + d.inverse->inserted;
        insert = d.inverse->removed;
      } else {
        from = random_offset(d.text);
        to = from;
        const int kind = static_cast<int>(pick(3)); // insert, delete, replace
        if (kind != 0) {
          to = std::min(d.text.size(), from + pick(24));
          while (!is_boundary(d.text, to))
            ++to;
        }
        if (kind != 1)
          insert = random_insertion(d);
      }
      changes.push_back(
          {{"range", {{"start", position_of(d.text, from)}, {"end", position_of(d.text, to)}}},
           {"text", insert}});
      d.inverse = Inverse{from, insert.size(), d.text.substr(from, to - from)};
      d.text.replace(from, to - from, insert);
      ++stats_.changes;
    }
    ++d.version;
    remember_version(d);
    ++stats_.edits;
    send_changes(d, std::move(changes));
  }

  // A snippet (keywords, code, non-ASCII, astral-plane characters) or a piece
  // of the original text, which keeps some edited texts close to valid code.
  std::string random_insertion(const Document &d) {
    if (!chance(0.25) || d.original.empty())
      return kSnippets[pick(kSnippets.size())];
    const size_t at = random_offset(d.original);
    size_t end = std::min(d.original.size(), at + pick(40));
    while (!is_boundary(d.original, end))
      ++end;
    return d.original.substr(at, end - at);
  }

  void send_changes(const Document &d, json changes) {
    server_.send({{"jsonrpc", "2.0"},
                  {"method", "textDocument/didChange"},
                  {"params",
                   {{"textDocument", {{"uri", d.uri}, {"version", d.version}}},
                    {"contentChanges", std::move(changes)}}}});
  }

  json random_position(const Document &d) { return position_of(d.text, random_offset(d.text)); }

  json random_range(const Document &d) {
    size_t a = random_offset(d.text), b = random_offset(d.text);
    if (a > b)
      std::swap(a, b);
    if (chance(0.5)) // most editors ask about a small range
      b = a;
    return {{"start", position_of(d.text, a)}, {"end", position_of(d.text, b)}};
  }

  json params_for(const Method &m, const Document &d) {
    const json doc = {{"uri", d.uri}};
    switch (m.params) {
    case Params::Document:
      return {{"textDocument", doc}};
    case Params::Position:
      return {{"textDocument", doc}, {"position", random_position(d)}};
    case Params::Range:
      return {{"textDocument", doc}, {"range", random_range(d)}};
    case Params::CodeAction:
      return {{"textDocument", doc},
              {"range", random_range(d)},
              {"context", {{"diagnostics", json::array()}}}};
    case Params::References:
      return {{"textDocument", doc},
              {"position", random_position(d)},
              {"context", {{"includeDeclaration", chance(0.5)}}}};
    case Params::Rename:
      return {{"textDocument", doc}, {"position", random_position(d)}, {"newName", "renamed_x"}};
    case Params::SelectionRange:
      return {{"textDocument", doc}, {"positions", {random_position(d), random_position(d)}}};
    case Params::Formatting:
      return {{"textDocument", doc}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}};
    case Params::RangeFormatting:
      return {{"textDocument", doc},
              {"range", random_range(d)},
              {"options", {{"tabSize", 4}, {"insertSpaces", true}}}};
    case Params::WorkspaceSymbol:
      return {{"query", chance(0.5) ? "" : "g"}};
    }
    return json::object();
  }

  int64_t send(const std::string &method, json params, Pending pending) {
    const int64_t id = next_id_++;
    // String ids too: the server must echo whichever kind it got.
    const json wire_id = chance(0.2) ? json("s" + std::to_string(id)) : json(id);
    server_.send({{"jsonrpc", "2.0"}, {"id", wire_id}, {"method", method}, {"params", params}});
    pending.method = method;
    pending_[id] = pending;
    wire_ids_[id] = wire_id;
    ++stats_.requests[method];
    return id;
  }

  void send_request(size_t doc) {
    const Document &d = docs_[doc];
    const Method &m = methods_[pick(methods_.size())];
    Pending p;
    p.document = doc;
    p.version = d.version;
    p.closes = d.closes;
    p.deliberately_bad = !d.open; // a closed document: an error or an empty result
    const int64_t id = send(m.name, params_for(m, d), p);
    if (chance(0.15)) {
      cancel(id);
      if (chance(0.5)) // a request whose cancel waits behind an edit
        server_.pump(0, handler());
    }
  }

  // Bad params the server must answer with -32602 or an empty result.
  void send_bad_request() {
    const Document &d = docs_[pick(docs_.size())];
    const Method &m = methods_[pick(methods_.size())];
    json params = params_for(m, d);
    switch (pick(3)) {
    case 0:
      params["textDocument"] = {{"uri", "file:///nowhere/unknown.argus"}};
      break;
    case 1:
      if (params.contains("position"))
        params["position"] = {{"line", 1 << 30}, {"character", 7}};
      else
        params["textDocument"] = 42;
      break;
    default:
      params.erase("textDocument");
      break;
    }
    Pending p;
    p.version = d.version;
    p.deliberately_bad = true;
    p.document = static_cast<size_t>(&d - docs_.data());
    p.closes = d.closes;
    send(m.name, params, p);
    ++stats_.bad;
  }

  void cancel(int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end())
      return;
    it->second.cancelled = true;
    server_.send(
        {{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", wire_ids_[id]}}}});
    ++stats_.cancels;
  }

  Document *document_of(const std::string &uri) {
    for (Document &d : docs_)
      if (d.uri == uri)
        return &d;
    return nullptr;
  }

  void on_message(const json &message) {
    if (message.value("jsonrpc", "") != "2.0")
      fail("not JSON-RPC 2.0: " + message.dump());
    if (message.contains("method")) {
      on_notification(message);
      return;
    }
    if (!message.contains("id"))
      fail("neither a notification nor a response: " + message.dump());
    const json &wire_id = message["id"];
    int64_t id = -1;
    if (wire_id.is_number_integer())
      id = wire_id.get<int64_t>();
    else if (wire_id.is_string() && wire_id.get<std::string>().starts_with("s"))
      id = std::stoll(wire_id.get<std::string>().substr(1));
    else
      fail("a response with an id we never sent: " + message.dump().substr(0, 300));
    if (id == shutdown_id_) {
      if (message.value("result", json(0)) != nullptr)
        fail("shutdown answered with something other than null: " + message.dump());
      shutdown_answered_ = true;
      return;
    }
    if (id == initialize_id_) {
      if (initialize_result_)
        fail("a second response to initialize");
      if (!message.contains("result"))
        fail("initialize failed: " + message.dump());
      initialize_result_ = message["result"];
      return;
    }
    auto it = pending_.find(id);
    if (it == pending_.end())
      fail("a second or unexpected response for id " + wire_id.dump() + ": " +
           message.dump().substr(0, 300));
    if (wire_ids_[id] != wire_id)
      fail("the response's id " + wire_id.dump() + " has another type than the request's");
    const Pending pending = it->second;
    pending_.erase(it);
    wire_ids_.erase(id);
    if (message.contains("error"))
      check_error(pending, message);
    else if (message.contains("result"))
      check_result(pending, message["result"]);
    else
      fail("a response with neither result nor error: " + message.dump());
  }

  void check_error(const Pending &p, const json &message) {
    const json &error = message["error"];
    if (!error.is_object() || !error.contains("code") || !error["code"].is_number_integer() ||
        !error.value("message", json()).is_string())
      fail("malformed error: " + message.dump());
    const int code = error["code"].get<int>();
    const bool overtaken = docs_[p.document].closes != p.closes;
    if (code == kContentModified) {
      ++stats_.content_modified;
      return;
    }
    if (code == kRequestCancelled && p.cancelled) {
      ++stats_.cancelled;
      return;
    }
    if (code == kInvalidParams && (p.deliberately_bad || overtaken))
      return;
    if ((p.method == "textDocument/rename" || p.method == "textDocument/prepareRename") &&
        (code == kInvalidParams || code == kRequestFailed))
      return;
    fail("unexpected error " + std::to_string(code) + " for " + p.method + ": " + message.dump());
  }

  void check_result(const Pending &p, const json &result) {
    if (p.deliberately_bad)
      return; // an empty or clamped answer is fine; it only must not crash
    Document &d = docs_[p.document];
    if (p.method == "textDocument/diagnostic" &&
        (!result.is_object() || result.value("kind", "") != "full" ||
         !result.value("items", json()).is_array()))
      fail("a diagnostic report that is not {kind: full, items: [...]}: " + result.dump());
    if ((p.method == "textDocument/documentSymbol" || p.method == "textDocument/codeAction") &&
        !result.is_array() && !result.is_null())
      fail(p.method + " answered with neither a list nor null: " + result.dump());
    if (p.method == "textDocument/hover" && !result.is_null() &&
        (!result.is_object() || !result.contains("contents")))
      fail("a hover without contents: " + result.dump());
    // The answer fits one of the versions from the request's to the latest.
    std::string problem = "no version of the document left to check against";
    for (auto it = d.versions.lower_bound(p.version); it != d.versions.end(); ++it) {
      problem = p.method.starts_with("textDocument/semanticTokens")
                    ? semantic_tokens_problem(result, *it->second)
                    : ranges_problem(result, d.uri, *it->second);
      if (problem.empty())
        return;
    }
    fail(p.method + " (version " + std::to_string(p.version) + " of " + d.uri + "): " + problem +
         "\nresult: " + result.dump().substr(0, 2000));
  }

  void on_notification(const json &message) {
    const std::string method = message["method"].get<std::string>();
    if (method == "window/logMessage" || method == "window/showMessage" || method == "$/logTrace" ||
        method == "$/progress" || method == "telemetry/event")
      return;
    if (method != "textDocument/publishDiagnostics") {
      if (message.contains("id"))
        fail("a request from the server this client never allowed: " + message.dump());
      return;
    }
    ++stats_.publishes;
    const json &params = message.at("params");
    Document *d = document_of(params.at("uri").get<std::string>());
    if (d == nullptr)
      fail("publishDiagnostics for a document never opened: " + message.dump());
    const json &diagnostics = params.at("diagnostics");
    if (!diagnostics.is_array())
      fail("publishDiagnostics without a diagnostics list");
    if (!params.contains("version")) {
      if (!diagnostics.empty())
        fail("diagnostics without a version: " + message.dump().substr(0, 300));
      return; // the empty list a close publishes
    }
    const int64_t version = params["version"].get<int64_t>();
    if (version < d->published)
      fail("publishDiagnostics went backwards for " + d->uri + ": " + std::to_string(version) +
           " after " + std::to_string(d->published));
    auto it = d->versions.find(version);
    if (it == d->versions.end())
      fail("publishDiagnostics for a version never sent (or pruned too early): " +
           std::to_string(version) + " of " + d->uri);
    d->published = version;
    for (const json &diagnostic : diagnostics) {
      if (std::string problem = it->second->range_problem(diagnostic.value("range", json()));
          !problem.empty())
        fail("published diagnostic of " + d->uri + " version " + std::to_string(version) + ": " +
             problem + "\n" + diagnostic.dump().substr(0, 1000));
      if (!diagnostic.value("message", json()).is_string())
        fail("a diagnostic without a message: " + diagnostic.dump());
    }
  }

  // Drops texts no pending request or future publish can refer to.
  void prune() {
    for (size_t i = 0; i < docs_.size(); ++i) {
      Document &d = docs_[i];
      int64_t keep = d.published;
      for (const auto &[id, p] : pending_)
        if (p.document == i)
          keep = std::min(keep, p.version);
      d.versions.erase(d.versions.begin(), d.versions.lower_bound(keep));
    }
  }

  std::mt19937_64 &random_;
  ServerProcess &server_;
  Stats &stats_;
  std::vector<Document> docs_;
  std::vector<Method> methods_;
  std::map<int64_t, Pending> pending_;
  std::map<int64_t, json> wire_ids_;
  int64_t next_id_ = 0;
  int64_t shutdown_id_ = -1;
  bool shutdown_answered_ = false;
  int64_t initialize_id_ = -1;
  std::optional<json> initialize_result_;
};

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::cerr << "usage: argus_lsp_soak ARGUS_BINARY EXAMPLES_DIR [--seed N] [--edits N] "
                 "[--time-limit SECONDS] [--checker JSON]\n";
    return 2;
  }
  const std::string binary = argv[1];
  const std::filesystem::path examples = argv[2];
  uint64_t seed = std::random_device{}();
  if (const char *env = std::getenv("ARGUS_SOAK_SEED"))
    seed = std::stoull(env);
  int edits = 3000, time_limit = 300;
  json checker = {{"queryTimeoutMs", 200}, {"unrollBound", 8}, {"maxBlocks", 2}};
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--seed")
      seed = std::stoull(value);
    else if (flag == "--edits")
      edits = std::stoi(value);
    else if (flag == "--time-limit")
      time_limit = std::stoi(value);
    else if (flag == "--checker")
      checker = json::parse(value);
    else {
      std::cerr << "unknown flag " << flag << '\n';
      return 2;
    }
  }
  std::cout << "argus_lsp_soak: seed " << seed << " (rerun: --seed " << seed << "), " << edits
            << " edits, limit " << time_limit << " s" << std::endl;
  std::signal(SIGPIPE, SIG_IGN);
  std::mt19937_64 random(seed);
  const auto start = Clock::now();
  ServerProcess server(binary, start + std::chrono::seconds(time_limit));
  Stats stats;
  try {
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(examples))
      if (entry.path().extension() == ".argus")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (files.empty())
      fail("no .argus files in " + examples.string());
    Soak soak(random, server, stats);
    soak.initialize(checker);
    for (const auto &file : files)
      soak.open("file://" + std::filesystem::absolute(file).string(), read_file(file));
    soak.run(edits);
    soak.finish();
    const int status = server.wait_exit();
    if (status != 0)
      fail("exit status " + std::to_string(status) + " after shutdown and exit");
  } catch (const std::exception &error) {
    std::cerr << "FAILED (seed " << seed << "): " << error.what()
              << "\n--- server stderr (tail) ---\n"
              << server.log_tail() << std::endl;
    return 1;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "ok in " << seconds << " s: " << stats.edits << " didChange (" << stats.changes
            << " changes, " << stats.resets << " resets), " << stats.reopens << " reopens, "
            << stats.publishes << " publishes, " << stats.cancels << " cancels (" << stats.cancelled
            << " answered -32800), " << stats.content_modified << " -32801, " << stats.bad
            << " bad requests\nrequests:";
  for (const auto &[method, count] : stats.requests)
    std::cout << ' ' << method << '=' << count;
  std::cout << std::endl;
  return 0;
}
