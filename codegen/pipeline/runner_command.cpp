#include "argus/codegen/runner_command.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace argus::codegen {

namespace {

std::string self_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

bool is_executable(const std::filesystem::path &p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

} // namespace

namespace {

// Shell-like word splitting without expansion; nullopt for an open quote.
std::optional<std::vector<std::string>> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word)
        words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
    } else if (c == '\'' || c == '"') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos)
        return std::nullopt;
      word += text.substr(i + 1, close - i - 1);
      i = close;
    } else {
      word += c;
    }
  }
  if (in_word)
    words.push_back(std::move(word));
  return words;
}

// The index of ssh's destination (the first word that is no option or option
// argument); argv.size() when there is none.
size_t ssh_destination(const std::vector<std::string> &argv) {
  static constexpr std::string_view kWithArgument = "BbcDEeFIiJLlmOopQRSWw";
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string &w = argv[i];
    if (w.size() < 2 || w[0] != '-')
      return i;
    if (w.size() == 2 && kWithArgument.find(w[1]) != std::string_view::npos)
      ++i; // "-p 22": the next word is the option's
  }
  return argv.size();
}

} // namespace

std::optional<std::vector<std::string>>
runner_argv(std::string_view tmpl, std::string_view runner, std::string_view artifact,
            std::string_view target, const std::vector<std::string> &extra, std::string &error) {
  auto words = split_words(tmpl);
  if (!words) {
    error = "the runner template has an unclosed quote: " + std::string(tmpl);
    return std::nullopt;
  }
  if (words->empty()) {
    error = "the runner template is empty";
    return std::nullopt;
  }
  const std::string program = std::filesystem::path((*words)[0]).filename().string();
  const size_t remote_from = program == "ssh" ? ssh_destination(*words) + 1 : SIZE_MAX;
  auto value = [&](std::string_view v, size_t index) {
    return index >= remote_from ? shell_quote(v) : std::string(v);
  };
  std::vector<std::string> argv;
  bool saw_artifact = false;
  for (size_t w = 0; w < words->size(); ++w) {
    const std::string &t = (*words)[w];
    std::string out;
    for (size_t i = 0; i < t.size();) {
      auto starts = [&](std::string_view key) { return t.compare(i, key.size(), key) == 0; };
      if (starts("{runner}")) {
        out += value(runner, w);
        i += 8;
      } else if (starts("{artifact}")) {
        out += value(artifact, w);
        saw_artifact = true;
        i += 10;
      } else if (starts("{target}")) {
        out += value(target, w);
        i += 8;
      } else {
        out += t[i++];
      }
    }
    argv.push_back(std::move(out));
  }
  if (!saw_artifact)
    argv.push_back(value(artifact, argv.size()));
  for (const std::string &e : extra)
    argv.push_back(value(e, argv.size()));
  return argv;
}

bool runner_allowed(std::string_view tmpl, const std::vector<std::string> &allowed_globs) {
  if (tmpl == kDefaultRunnerTemplate)
    return true;
  const std::string text(tmpl);
  for (const std::string &glob : allowed_globs)
    if (fnmatch(glob.c_str(), text.c_str(), 0) == 0)
      return true;
  return false;
}

std::string find_runner() {
  const std::string self = self_path();
  if (!self.empty()) {
    const auto candidate = std::filesystem::path(self).parent_path() / "argus-runner";
    if (is_executable(candidate))
      return candidate.string();
  }
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / "argus-runner";
      if (is_executable(candidate))
        return candidate.string();
    }
  }
  return "argus-runner";
}

std::string text_tail(const std::string &text, size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  return t.size() > max_chars ? "..." + t.substr(t.size() - max_chars) : t;
}

std::optional<nlohmann::ordered_json> parse_runner_output(const std::string &out) {
  auto attempt = [](std::string_view text) -> std::optional<nlohmann::ordered_json> {
    auto j = nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !(j.is_object() || j.is_array()))
      return std::nullopt;
    return j;
  };
  if (auto j = attempt(out))
    return j;
  for (size_t pos = 0; pos < out.size();) {
    const size_t nl = out.find('\n', pos);
    const size_t next = nl == std::string::npos ? out.size() : nl + 1;
    if (nl != std::string::npos && next < out.size() && (out[next] == '{' || out[next] == '['))
      if (auto j = attempt(std::string_view(out).substr(next)))
        return j;
    pos = next;
  }
  return std::nullopt;
}

} // namespace argus::codegen
