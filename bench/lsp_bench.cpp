// argus-bench-lsp: what an editor waits for from the real `argus lsp`.
//
//   argus-bench-lsp [--edits=N] [--documents=N] [--argus=PATH] [--dump=DIR]
//                   [--only=KIND] [--big-file=KERNELS] [FILE.argus ...]
//
// For each file (default: examples/*.argus) a fresh `argus lsp` subprocess
// opens it and gets N edits (default 1000), one didChange each, of a fixed
// mix (bench/lsp_edits.h): typing in comments and docstrings and trailing
// whitespace (no new proof needed), renaming a kernel's local and changing a
// module constant (new proofs). Timed: didChange written -> its
// publishDiagnostics read, and a hover sent right after each rename (so it
// waits behind, or runs beside, that edit's check). Memory: VmRSS of a server
// with 0, 1 and --documents open documents (distinct copies of the files).
// --edits=0 only checks that the benchmark starts (CI builds it, never runs it).
// --only=KIND replays one kind of edit instead of the mix (its name with
// dashes: line-at-the-top, comment-typing, ...). --big-file=KERNELS times a
// file of that many small kernels instead: didOpen to its first diagnostics
// and to the whole check, and a change in its middle kernel.
#include "argus/agent/lsp_process.h"
#include "lsp_edits.h"

#include "argus/dsl/driver.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using argus::agent::Clock;
using argus::agent::LspProcess;
using argus::bench::Edit;
using argus::bench::EditKind;
using nlohmann::json;

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("model name"))
      return line.substr(line.find(':') + 2);
  return "unknown";
}

// Zero-based line and UTF-8 byte column of an offset (the server is asked
// for utf-8 positions).
json position(const std::string &text, size_t offset) {
  const size_t line =
      static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
  const size_t start = offset == 0 ? 0 : text.rfind('\n', offset - 1);
  const size_t column = start == std::string::npos || offset == 0 ? offset : offset - start - 1;
  return {{"line", line}, {"character", column}};
}

std::vector<std::string> codes_of(const json &diagnostics) {
  std::vector<std::string> codes;
  for (const json &d : diagnostics)
    codes.push_back(d.value("code", ""));
  std::sort(codes.begin(), codes.end());
  return codes;
}

std::vector<std::string> codes_of(const argus::CheckedFile &file) {
  std::vector<std::string> codes;
  for (const argus::Diagnostic &d : file.diagnostics)
    codes.push_back(d.code);
  std::sort(codes.begin(), codes.end());
  return codes;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Nearest-rank percentile of unsorted samples.
double percentile(std::vector<double> samples, double p) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  size_t rank = static_cast<size_t>(p / 100.0 * static_cast<double>(samples.size()) + 0.999999);
  rank = std::clamp<size_t>(rank, 1, samples.size());
  return samples[rank - 1];
}

struct Samples {
  std::vector<double> ms;
  size_t changed = 0; // edits whose diagnostics' codes differed from the original's
};

void start(LspProcess &server) {
  const int id = server.request(
      "initialize",
      {{"processId", nullptr},
       {"capabilities", {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}}}});
  const json result = server.wait_for_response(id).message["result"];
  if (result["capabilities"].value("positionEncoding", "") != "utf-8")
    throw std::runtime_error("the server did not agree to utf-8 positions");
  server.notify("initialized", json::object());
}

argus::agent::Arrival wait_publish(LspProcess &server, const std::string &uri, int64_t version) {
  return server.wait_for([&](const json &m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" &&
           m["params"]["uri"] == uri && m["params"].value("version", int64_t{-1}) == version;
  });
}

// Waits for the answer to `id`, an error or not (a request used as a barrier).
void round_trip(LspProcess &server, int id) {
  server.wait_for([id](const json &m) { return m.contains("id") && m["id"] == id; });
}

json change_of(const std::string &text, const argus::bench::Change &c) {
  return {{"range", {{"start", position(text, c.begin)}, {"end", position(text, c.end)}}},
          {"text", c.text}};
}

struct ExampleResult {
  std::string name;
  double open_ms = 0;
  std::map<EditKind, Samples> by_kind;
  Samples hover;
  size_t hover_nulls = 0;
  long rss_open_kib = 0, rss_end_kib = 0;
};

ExampleResult replay(const std::string &argus, const fs::path &file, int edits,
                     const std::string &dump_dir, std::optional<EditKind> only) {
  ExampleResult result;
  result.name = file.filename().string();
  const std::string original = read_file(file);
  argus::FrontendOptions options; // what `argus lsp` checks with by default
  const std::vector<std::string> expected =
      codes_of(argus::check_source(file.string(), original, options));
  argus::bench::EditScript script(original, [&](const std::string &text) {
    return codes_of(argus::check_source(file.string(), text, options)) == expected;
  });
  if (only)
    script.only(*only);

  LspProcess server(argus, {"lsp", "--log-level=error"});
  start(server);
  const std::string uri = "file://" + fs::absolute(file).string();
  const Clock::time_point opened = server.send(
      {{"jsonrpc", "2.0"},
       {"method", "textDocument/didOpen"},
       {"params",
        {{"textDocument",
          {{"uri", uri}, {"languageId", "argus"}, {"version", 1}, {"text", original}}}}}});
  result.open_ms = ms(wait_publish(server, uri, 1).at - opened);
  result.rss_open_kib = server.resident_kib();

  std::string text = original;
  for (int i = 0; i < edits; ++i) {
    const Edit edit = script.next(text);
    const int64_t version = i + 2;
    json changes = json::array();
    for (const auto &c : edit.changes)
      changes.push_back(change_of(text, c)); // reverse document order: all valid in `text`
    text = argus::bench::apply(text, edit);
    const Clock::time_point sent = server.send(
        {{"jsonrpc", "2.0"},
         {"method", "textDocument/didChange"},
         {"params",
          {{"textDocument", {{"uri", uri}, {"version", version}}}, {"contentChanges", changes}}}});
    int hover_id = -1;
    Clock::time_point hover_sent;
    if (edit.kind == EditKind::RenameLocal && edit.name_at) {
      hover_sent = Clock::now();
      hover_id =
          server.request("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                                {"position", position(text, *edit.name_at)}});
    }
    const argus::agent::Arrival published = wait_publish(server, uri, version);
    Samples &samples = result.by_kind[edit.kind];
    samples.ms.push_back(ms(published.at - sent));
    if (codes_of(published.message["params"]["diagnostics"]) != expected && samples.changed++ == 0)
      std::cerr << result.name << ": edit " << i + 1 << " (" << argus::bench::kind_name(edit.kind)
                << ") changed the diagnostics: "
                << published.message["params"]["diagnostics"].dump() << "\n";
    if (hover_id >= 0) {
      const argus::agent::Arrival answer = server.wait_for_response(hover_id);
      result.hover.ms.push_back(ms(answer.at - hover_sent));
      if (answer.message["result"].is_null())
        ++result.hover_nulls;
    }
  }
  result.rss_end_kib = server.resident_kib();
  if (!dump_dir.empty())
    std::ofstream(fs::path(dump_dir) / result.name) << text;
  if (server.stop() != 0)
    throw std::runtime_error("argus lsp did not exit with 0 after shutdown");
  return result;
}

struct MemoryResult {
  long empty_kib = 0, one_kib = 0, many_kib = 0, closed_kib = 0;
  int documents = 0;
};

// VmRSS with 0, 1 and `documents` open documents: copies of the files, each
// made distinct by a module constant of its own, which every kernel's cache
// key holds, so that no copy reuses another's cached proofs (a comment would
// not do: the key leaves comments out).
MemoryResult memory(const std::string &argus, const std::vector<fs::path> &files, int documents) {
  MemoryResult result;
  result.documents = documents;
  LspProcess server(argus, {"lsp", "--log-level=error"});
  start(server);
  // A round trip, so the server is past initialize before we read its memory.
  round_trip(server, server.request("textDocument/diagnostic",
                                    {{"textDocument", {{"uri", "file:///none.argus"}}}}));
  result.empty_kib = server.resident_kib();
  for (int i = 0; i < documents; ++i) {
    const fs::path &file = files[static_cast<size_t>(i) % files.size()];
    const std::string text = "BENCH_COPY = " + std::to_string(i) + "\n" + read_file(file);
    const std::string uri =
        "file:///bench/copy" + std::to_string(i) + "/" + file.filename().string();
    server.notify("textDocument/didOpen",
                  {{"textDocument",
                    {{"uri", uri}, {"languageId", "argus"}, {"version", 1}, {"text", text}}}});
    wait_publish(server, uri, 1);
    if (i == 0)
      result.one_kib = server.resident_kib();
  }
  result.many_kib = server.resident_kib();
  for (int i = 0; i < documents; ++i) {
    const fs::path &file = files[static_cast<size_t>(i) % files.size()];
    server.notify(
        "textDocument/didClose",
        {{"textDocument",
          {{"uri", "file:///bench/copy" + std::to_string(i) + "/" + file.filename().string()}}}});
  }
  round_trip(server, server.request("textDocument/diagnostic",
                                    {{"textDocument", {{"uri", "file:///none.argus"}}}}));
  result.closed_kib = server.resident_kib();
  server.stop();
  return result;
}

std::string fixed(double v, int digits = 1) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

void row(const std::string &name, const std::string &kind, const Samples &s) {
  if (s.ms.empty())
    return; // a kind this run did not replay (--only)
  std::cout << "| " << name << " | " << kind << " | " << s.ms.size() << " | "
            << fixed(percentile(s.ms, 50), 2) << " | " << fixed(percentile(s.ms, 99), 2) << " | "
            << fixed(s.ms.empty() ? 0 : *std::max_element(s.ms.begin(), s.ms.end()), 2) << " | "
            << s.changed << " |\n";
}

// An edit kind by its name with dashes for spaces ("line-at-the-top").
std::optional<EditKind> kind_named(const std::string &name) {
  for (EditKind kind : argus::bench::kAllEditKinds) {
    std::string dashed = argus::bench::kind_name(kind);
    std::replace(dashed.begin(), dashed.end(), ' ', '-');
    if (dashed == name)
      return kind;
  }
  return std::nullopt;
}

// A file of `kernels` small kernels (each about 2 KiB with its docstring),
// each its own name: the "big file" of issue 12.
std::string big_file(int kernels) {
  std::string text;
  const std::string padding(28, 'x');
  for (int k = 0; k < kernels; ++k) {
    text += "@kernel(grid=(cdiv(N, 64),), block=64)\n"
            "def scale" +
            std::to_string(k) +
            "(X: Tensor((N,), f32), Y: Tensor((N,), f32), N: i32):\n"
            "    \"\"\"Scales X into Y, one element per thread.\n";
    for (int line = 0; line < 50; ++line)
      text += "    " + padding + "\n";
    text += "    \"\"\"\n"
            "    i = block_id() * 64 + thread_id()\n"
            "    if i < N:\n"
            "        Y[i] = X[i] * 2.0\n\n";
  }
  return text;
}

// didOpen of a big file -> its first publishDiagnostics, and -> the whole
// check (the answer to a pull sent with the open, which waits for it); then
// a change in the middle kernel -> its publishDiagnostics.
int big_file_bench(const std::string &argus, int kernels) {
  const std::string text = big_file(kernels);
  LspProcess server(argus, {"lsp", "--log-level=error"});
  start(server);
  const std::string uri = "file:///tmp/argus-bench-big-file.argus";
  const Clock::time_point opened =
      server.send({{"jsonrpc", "2.0"},
                   {"method", "textDocument/didOpen"},
                   {"params",
                    {{"textDocument",
                      {{"uri", uri}, {"languageId", "argus"}, {"version", 1}, {"text", text}}}}}});
  const int pull = server.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  const double first = ms(wait_publish(server, uri, 1).at - opened);
  const double all = ms(server.wait_for_response(pull).at - opened);
  const size_t middle = text.find("2.0", text.size() / 2);
  const argus::bench::Change change{middle, middle + 3, "3.0"};
  const Clock::time_point sent =
      server.send({{"jsonrpc", "2.0"},
                   {"method", "textDocument/didChange"},
                   {"params",
                    {{"textDocument", {{"uri", uri}, {"version", 2}}},
                     {"contentChanges", json::array({change_of(text, change)})}}}});
  const double edit = ms(wait_publish(server, uri, 2).at - sent);
  server.stop();
  std::cout << "| " << kernels << " kernels (" << fixed(static_cast<double>(text.size()) / 1024.0)
            << " KiB) | " << fixed(first, 1) << " | " << fixed(all, 1) << " | " << fixed(edit, 1)
            << " |\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int edits = 1000, documents = 12, big_kernels = 0;
  std::optional<EditKind> only;
  std::string argus = ARGUS_BINARY, dump_dir;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("--edits="))
      edits = std::stoi(arg.substr(8));
    else if (arg.starts_with("--documents="))
      documents = std::max(2, std::stoi(arg.substr(12)));
    else if (arg.starts_with("--dump="))
      dump_dir = arg.substr(7); // the edited texts, to inspect the edits
    else if (arg.starts_with("--argus="))
      argus = arg.substr(8);
    else if (arg.starts_with("--big-file="))
      big_kernels = std::stoi(arg.substr(11));
    else if (arg.starts_with("--only=") && (only = kind_named(arg.substr(7))))
      continue;
    else if (arg.starts_with("--")) {
      std::cerr << "usage: argus-bench-lsp [--edits=N] [--documents=N] [--argus=PATH] [--dump=DIR] "
                   "[--only=KIND] [--big-file=KERNELS] [FILE...]\n";
      return 2;
    } else
      files.emplace_back(arg);
  }
  if (files.empty()) {
    for (const auto &entry : fs::directory_iterator(fs::path(ARGUS_SOURCE_DIR) / "examples"))
      if (entry.path().extension() == ".argus")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  }

  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
  std::cout << "argus-bench-lsp " << date << ", " << ARGUS_BUILD_TYPE << " build, " << cpu_model()
            << " (" << std::thread::hardware_concurrency() << " hardware threads), " << edits
            << " edits per file, server " << argus << "\n\n";
  try {
    if (big_kernels > 0) {
      std::cout
          << "| file | didOpen -> first publish ms | -> all kernels ms | change in the middle "
             "kernel -> publish ms |\n|---|---:|---:|---:|\n";
      return big_file_bench(argus, big_kernels);
    }
    std::vector<ExampleResult> results;
    for (const fs::path &file : files) {
      std::cerr << "replaying " << file.filename().string() << "...\n";
      results.push_back(replay(argus, file, edits, dump_dir, only));
    }
    std::cout << "Latency didChange -> publishDiagnostics, hover sent right after a rename -> "
                 "its answer (ms; changed: edits whose diagnostic codes differed from the "
                 "original's)\n\n"
              << "| file | edit | n | p50 ms | p99 ms | max ms | changed |\n"
              << "|---|---|---:|---:|---:|---:|---:|\n";
    Samples no_proof, proof, hover, moved;
    for (const ExampleResult &r : results) {
      for (EditKind kind : argus::bench::kAllEditKinds) {
        auto it = r.by_kind.find(kind);
        if (it == r.by_kind.end())
          continue;
        row(r.name, argus::bench::kind_name(kind), it->second);
        Samples &group = kind == EditKind::LineAtTop       ? moved
                         : argus::bench::needs_proof(kind) ? proof
                                                           : no_proof;
        group.ms.insert(group.ms.end(), it->second.ms.begin(), it->second.ms.end());
        group.changed += it->second.changed;
      }
      row(r.name, "hover after a rename", r.hover);
      hover.ms.insert(hover.ms.end(), r.hover.ms.begin(), r.hover.ms.end());
    }
    row("**all files**", "**no new proof needed** (comments, docstrings, whitespace)", no_proof);
    row("**all files**", "**with proofs** (rename a local, change a constant)", proof);
    row("**all files**", "**hover after a rename**", hover);
    row("**all files**", "**line at the top** (every kernel moves down)", moved);

    std::cout
        << "\nPer file: first check after didOpen, VmRSS after didOpen and after the edits\n\n"
        << "| file | didOpen -> publish ms | RSS open MiB | RSS after edits MiB | null hovers |\n"
        << "|---|---:|---:|---:|---:|\n";
    for (const ExampleResult &r : results)
      std::cout << "| " << r.name << " | " << fixed(r.open_ms, 1) << " | "
                << fixed(r.rss_open_kib / 1024.0) << " | " << fixed(r.rss_end_kib / 1024.0) << " | "
                << r.hover_nulls << " |\n";

    const MemoryResult m = memory(argus, files, documents);
    std::cout << "\nResident memory (VmRSS of the server process)\n\n"
              << "| open documents | RSS MiB |\n|---|---:|\n"
              << "| 0 (after initialize) | " << fixed(m.empty_kib / 1024.0) << " |\n"
              << "| 1 | " << fixed(m.one_kib / 1024.0) << " |\n"
              << "| " << m.documents << " | " << fixed(m.many_kib / 1024.0) << " |\n"
              << "| 0 (all closed again) | " << fixed(m.closed_kib / 1024.0) << " |\n"
              << "| **per open document** ((" << m.documents << " - 1) / " << m.documents - 1
              << ") | **" << fixed((m.many_kib - m.one_kib) / 1024.0 / (m.documents - 1), 2)
              << "** |\n";
  } catch (const std::exception &error) {
    std::cerr << "argus-bench-lsp: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
