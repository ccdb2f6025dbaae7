// Writes the fuzzers' seed corpora (at build time, see CMakeLists.txt):
//
//   argus_fuzz_seeds LSP_DIR CHECK_DIR [--transcripts FILE...] [--sources FILE...]
//
// LSP_DIR gets one framed byte stream per transcript (its `-->` lines framed
// with Content-Length, its `==>` lines unescaped and sent raw, as
// tests/server/transcript_runner.cpp sends them) and one session per source
// file (initialize, open, requests, an edit, a cancel, shutdown, exit).
// CHECK_DIR gets a copy of every source file.

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in)
    throw std::runtime_error("cannot read " + path.string());
  return text.str();
}

void write_file(const fs::path &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out)
    throw std::runtime_error("cannot write " + path.string());
}

std::string frame(const std::string &body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string unescape(const std::string &text) {
  std::string result;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char c = text[++i];
      result += c == 'r' ? '\r' : c == 'n' ? '\n' : c;
    } else {
      result += text[i];
    }
  }
  return result;
}

std::string transcript_stream(const std::string &transcript) {
  std::istringstream lines(transcript);
  std::string line, bytes;
  while (std::getline(lines, line)) {
    if (line.starts_with("--> "))
      bytes += frame(line.substr(4));
    else if (line.starts_with("==> "))
      bytes += unescape(line.substr(4));
  }
  return bytes;
}

json request(int id, const std::string &method, json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json notification(const std::string &method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json position(int line, int character) { return {{"line", line}, {"character", character}}; }

// One session over `text`: every request kind the server knows, at a few places.
std::string session(const std::string &text, bool utf8) {
  const std::string uri = "file:///seed.argus";
  const json doc = {{"uri", uri}};
  json capabilities = json::object();
  if (utf8)
    capabilities["general"] = {{"positionEncodings", {"utf-8", "utf-16"}}};
  std::vector<json> messages = {
      request(1, "initialize",
              {{"capabilities", capabilities},
               {"initializationOptions",
                {{"checker", {{"unrollBound", 2}, {"maxBlocks", 1}, {"symbolic", false}}}}}}),
      notification("initialized", json::object()),
      notification("textDocument/didOpen",
                   {{"textDocument",
                     {{"uri", uri}, {"languageId", "argus"}, {"version", 1}, {"text", text}}}}),
      request(2, "textDocument/documentSymbol", {{"textDocument", doc}}),
      request(3, "textDocument/hover", {{"textDocument", doc}, {"position", position(1, 6)}}),
      request(4, "textDocument/hover", {{"textDocument", doc}, {"position", position(4, 8)}}),
      request(5, "textDocument/diagnostic", {{"textDocument", doc}}),
      request(6, "textDocument/codeAction",
              {{"textDocument", doc},
               {"range", {{"start", position(0, 0)}, {"end", position(1000, 0)}}},
               {"context", {{"diagnostics", json::array()}}}}),
      notification("$/cancelRequest", {{"id", 6}}),
      notification("textDocument/didChange",
                   {{"textDocument", {{"uri", uri}, {"version", 2}}},
                    {"contentChanges",
                     {{{"range", {{"start", position(2, 4)}, {"end", position(2, 4)}}},
                       {"text", "x = 1  # é 😀\n    "}}}}}),
      request(7, "textDocument/diagnostic", {{"textDocument", doc}}),
      notification("textDocument/didClose", {{"textDocument", doc}}),
      request(8, "shutdown", nullptr),
      notification("exit", nullptr),
  };
  std::string bytes;
  for (const json &message : messages)
    bytes += frame(message.dump());
  return bytes;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::cerr << "usage: argus_fuzz_seeds LSP_DIR CHECK_DIR [--transcripts FILE...] "
                 "[--sources FILE...]\n";
    return 2;
  }
  try {
    const fs::path lsp_dir = argv[1], check_dir = argv[2];
    fs::create_directories(lsp_dir);
    fs::create_directories(check_dir);
    std::string mode;
    int written = 0;
    for (int i = 3; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--transcripts" || arg == "--sources") {
        mode = arg;
        continue;
      }
      const fs::path path = arg;
      // The parent folder keeps examples/x.argus and corpus/x.argus apart.
      const std::string name = path.parent_path().filename().string() + "-" + path.stem().string();
      const std::string text = read_file(path);
      if (mode == "--transcripts") {
        write_file(lsp_dir / ("transcript-" + name), transcript_stream(text));
        ++written;
      } else if (mode == "--sources") {
        write_file(check_dir / (name + ".argus"), text);
        write_file(lsp_dir / ("session-" + name), session(text, false));
        write_file(lsp_dir / ("session-utf8-" + name), session(text, true));
        written += 3;
      } else {
        throw std::runtime_error("a file before --transcripts or --sources: " + arg);
      }
    }
    std::cout << "argus_fuzz_seeds: wrote " << written << " seeds\n";
  } catch (const std::exception &error) {
    std::cerr << "argus_fuzz_seeds: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
