// argus-corpus: runs tree-sitter corpus files against the Argus grammar.
//
//   argus-corpus [--update] FILE...
//
// Exit status 0 when every test of every file passes, 1 otherwise (a failure, a malformed or
// unreadable file, a usage error). `--update` or ARGUS_UPDATE_CORPUS=1 rewrites the expected
// trees of failing tests instead of failing them.
#include "argus/grammar/corpus.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

void print_indented(const std::string &text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) {
      end = text.size();
    }
    std::printf("      %.*s\n", static_cast<int>(end - pos), text.data() + pos);
    pos = end + 1;
  }
}

int usage() {
  std::fprintf(stderr, "usage: argus-corpus [--update] FILE...\n"
                       "  Runs tree-sitter corpus tests against the Argus grammar.\n"
                       "  --update (or ARGUS_UPDATE_CORPUS=1) rewrites the expected trees.\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  using argus::grammar::CorpusOutcome;
  bool update = argus::grammar::corpus_update_requested();
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--update") {
      update = true;
    } else if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    } else if (arg.starts_with("-")) {
      std::fprintf(stderr, "argus-corpus: unknown option %s\n", argv[i]);
      return usage();
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.empty()) {
    return usage();
  }

  size_t passed = 0;
  size_t failed = 0;
  size_t skipped = 0;
  size_t updated = 0;
  size_t bad_files = 0;
  for (const std::string &file : files) {
    std::printf("%s\n", file.c_str());
    const argus::grammar::CorpusReport report = argus::grammar::run_corpus_file(file, update);
    if (!report.error.empty()) {
      std::printf("  error: %s\n", report.error.c_str());
      std::fprintf(stderr, "%s: %s\n", file.c_str(), report.error.c_str());
      ++bad_files;
      continue;
    }
    for (const argus::grammar::CorpusResult &result : report.results) {
      switch (result.outcome) {
      case CorpusOutcome::kPassed:
        ++passed;
        std::printf("  ok       %s\n", result.name.c_str());
        break;
      case CorpusOutcome::kSkipped:
        ++skipped;
        std::printf("  skipped  %s\n", result.name.c_str());
        break;
      case CorpusOutcome::kUpdated:
        ++updated;
        std::printf("  updated  %s\n", result.name.c_str());
        break;
      case CorpusOutcome::kFailed:
        ++failed;
        std::printf("  FAILED   %s (%s:%zu)\n", result.name.c_str(), file.c_str(), result.line);
        print_indented(result.message);
        break;
      }
    }
  }
  std::printf("%zu passed, %zu failed, %zu skipped, %zu updated", passed, failed, skipped, updated);
  if (bad_files > 0) {
    std::printf(", %zu file(s) with errors", bad_files);
  }
  std::printf("\n");
  return failed == 0 && bad_files == 0 ? 0 : 1;
}
