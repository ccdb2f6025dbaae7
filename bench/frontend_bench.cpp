// argus-bench-frontend: how fast the front end is on realistic input.
//
//   argus-bench-frontend [--runs=N] [--edits=N] [--examples=DIR] [--format=text|json]
//
// Measures, for generated files of about 500 and 5,000 lines (the example
// kernels repeated with renamed top-level names, so they still check clean):
//   parse        SyntaxTree::parse of the whole file
//   check        argus::check_source: parse + lowering + semantic analysis (no checker)
//   reparse      ts_tree_edit + SyntaxTree::reparse after a one-character edit
//   full parse   SyntaxTree::parse of the same edited texts (the baseline)
// and `check` of each example file. Each row gives the median and the 90th
// percentile; see bench/RESULTS.md for the method and the figures.
#include "argus/dsl/driver.h"
#include "argus/dsl/syntax_tree.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The CPU, for the record ("unknown" off Linux).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("model name")) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

struct Settings {
  int runs = 20;
  int edits = 200;
  fs::path examples = fs::path(ARGUS_SOURCE_DIR) / "examples";
  bool json = false;
  std::string input; // what the generated files repeat
};

struct Row {
  std::string name;
  size_t lines = 0;
  size_t bytes = 0;
  size_t samples = 0;
  double median_ms = 0;
  double p90_ms = 0;
  size_t errors = 0; // error diagnostics of the input (0: it is realistic, valid code)
};

struct Input {
  std::string name;
  std::string text;
};

size_t count_lines(const std::string &text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Median and 90th percentile (nearest rank) of a sample, in milliseconds.
void summarize(std::vector<double> samples, Row &row) {
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  row.samples = n;
  row.median_ms = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  const size_t rank = (9 * n + 9) / 10; // ceil(0.9 n)
  row.p90_ms = samples[std::max<size_t>(rank, 1) - 1];
}

double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

size_t error_count(const argus::CheckedFile &file) {
  return static_cast<size_t>(std::count_if(
      file.diagnostics.begin(), file.diagnostics.end(),
      [](const argus::Diagnostic &d) { return d.severity == argus::Severity::Error; }));
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Top-level names of a file: `NAME = ...`, `NAME: ... = ...` and `def NAME(`.
std::set<std::string> top_level_names(const std::string &text) {
  std::set<std::string> names;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t start = line.starts_with("def ") ? 4 : 0;
    if (line.empty() ||
        !(std::isalpha(static_cast<unsigned char>(line[start])) || line[start] == '_'))
      continue;
    size_t end = start;
    while (end < line.size() && is_identifier_char(line[end]))
      ++end;
    const std::string name = line.substr(start, end - start);
    const std::string rest = line.substr(end);
    if (start == 4 || rest.starts_with(" =") || rest.starts_with("=") || rest.starts_with(":"))
      names.insert(name);
  }
  return names;
}

// Appends `suffix` to every occurrence of a top-level name outside strings and comments.
std::string rename_top_level(const std::string &text, const std::string &suffix) {
  const std::set<std::string> names = top_level_names(text);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '#') { // a comment, to the end of the line
      const size_t end = std::min(text.find('\n', i), text.size());
      out.append(text, i, end - i);
      i = end;
    } else if (c == '"' || c == '\'') { // a string (no escapes in Argus names)
      const size_t end = text.find(c, i + 1);
      const size_t stop = end == std::string::npos ? text.size() : end + 1;
      out.append(text, i, stop - i);
      i = stop;
    } else if (is_identifier_char(c)) {
      size_t end = i;
      while (end < text.size() && is_identifier_char(text[end]))
        ++end;
      const std::string word = text.substr(i, end - i);
      out += word;
      if (names.count(word) && (i == 0 || text[i - 1] != '.'))
        out += suffix;
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

// Used when examples/ holds no .argus file.
constexpr const char *kBuiltinKernel = R"(BM = 64
BK = 32
THREADS = 256


@kernel(grid=(cdiv(N, BM), cdiv(M, BM)), block=THREADS)
def gemm(A: Tensor((M, K), bf16), B: Tensor((N, K), bf16), C: Tensor((M, N), f32),
         M: i32, N: i32, K: i32):
    assume(M % BM == 0, N % BM == 0, K % BK == 0)
    a_smem = make_shared((BM, BK), bf16)
    b_smem = make_shared((BM, BK), bf16)
    acc = full((4, 4), 0.0, f32)
    tid = thread_id()
    m0 = block_id(1) * BM
    n0 = block_id(0) * BM
    for kt in range(0, K // BK):
        for e in range(0, BM * BK // THREADS, unroll=8):
            idx = tid + e * THREADS
            a_smem[idx // BK, idx % BK] = A[m0 + idx // BK, kt * BK + idx % BK]
            b_smem[idx // BK, idx % BK] = B[n0 + idx // BK, kt * BK + idx % BK]
        syncthreads()
        for kk in range(0, BK):
            for i in range(0, 4, unroll=4):
                a = f32(a_smem[tid // 16 + 16 * i, kk])
                for j in range(0, 4, unroll=4):
                    acc[i, j] += a * f32(b_smem[tid % 16 + 16 * j, kk])
        syncthreads()
    for i in range(0, 4, unroll=4):
        for j in range(0, 4, unroll=4):
            C[m0 + tid // 16 + 16 * i, n0 + tid % 16 + 16 * j] = acc[i, j]
)";

std::vector<Input> example_inputs(const fs::path &dir) {
  std::vector<Input> inputs;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (const auto &entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".argus")
        inputs.push_back({"examples/" + entry.path().filename().string(), read_file(entry.path())});
    }
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const Input &a, const Input &b) { return a.name < b.name; });
  return inputs;
}

// Repeats the sources (renamed per copy) until the file has at least `lines` lines.
std::string generate(const std::vector<Input> &sources, size_t lines) {
  std::string text;
  for (size_t copy = 0; count_lines(text) < lines; ++copy) {
    const Input &source = sources[copy % sources.size()];
    text += rename_top_level(source.text, "_" + std::to_string(copy));
    text += "\n\n";
  }
  return text;
}

Row time_runs(const std::string &name, const std::string &text, int runs,
              const std::function<void()> &body) {
  Row row{name, count_lines(text), text.size()};
  body(); // warm-up: page in code, grow allocator pools
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    body();
    samples.push_back(elapsed_ms(start));
  }
  summarize(std::move(samples), row);
  return row;
}

Row time_check(const std::string &name, const std::string &text, int runs) {
  size_t errors = 0;
  Row row{name, count_lines(text), text.size()};
  std::vector<double> samples;
  for (int i = -1; i < runs; ++i) { // run -1 is the warm-up
    std::string copy = text;
    const auto start = Clock::now();
    // The front end alone; the invariant checker has its own benchmark
    // (argus-bench-checker).
    argus::FrontendOptions options;
    options.invariants = false;
    const argus::CheckedFile checked = argus::check_source(name, std::move(copy), options);
    const double ms = elapsed_ms(start);
    errors = error_count(checked);
    if (i >= 0)
      samples.push_back(ms);
  }
  summarize(std::move(samples), row);
  row.errors = errors;
  return row;
}

TSPoint point_at(const std::string &text, size_t offset) {
  const size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t column =
      line_start == std::string::npos || offset == 0 ? offset : offset - line_start - 1;
  return TSPoint{static_cast<uint32_t>(
                     std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n')),
                 static_cast<uint32_t>(column)};
}

// A digit of an integer literal in code (not in a comment), at or after the middle.
size_t editable_digit(const std::string &text) {
  for (size_t i = text.size() / 2; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '0')
      continue;
    if (i > 0 && (is_identifier_char(text[i - 1]) || text[i - 1] == '.'))
      continue;
    const size_t line_start = text.rfind('\n', i) + 1;
    if (text.find('#', line_start) < i)
      continue;
    return i;
  }
  return std::string::npos;
}

// One-character edits (a digit toggled back and forth), incremental vs full.
std::pair<Row, Row> time_edits(const std::string &name, std::string text, int edits) {
  Row incremental{name + " reparse", count_lines(text), text.size()};
  Row full{name + " full parse", incremental.lines, incremental.bytes};
  const size_t at = editable_digit(text);
  if (at == std::string::npos)
    return {incremental, full};
  const char original = text[at];
  const char other = original == '9' ? '8' : static_cast<char>(original + 1);
  const TSPoint point = point_at(text, at);
  const TSInputEdit edit{static_cast<uint32_t>(at),
                         static_cast<uint32_t>(at + 1),
                         static_cast<uint32_t>(at + 1),
                         point,
                         TSPoint{point.row, point.column + 1},
                         TSPoint{point.row, point.column + 1}};

  argus::SyntaxTree tree = argus::SyntaxTree::parse(text);
  std::vector<double> incremental_samples;
  std::vector<double> full_samples;
  for (int i = -1; i < edits; ++i) { // edit -1 is the warm-up
    text[at] = text[at] == original ? other : original;
    auto start = Clock::now();
    tree.edit(edit);
    tree = argus::SyntaxTree::reparse(text, tree);
    const double incremental_ms = elapsed_ms(start);
    start = Clock::now();
    const argus::SyntaxTree fresh = argus::SyntaxTree::parse(text);
    const double full_ms = elapsed_ms(start);
    if (ts_node_end_byte(fresh.root()) != ts_node_end_byte(tree.root()) ||
        ts_node_has_error(fresh.root()) != ts_node_has_error(tree.root())) {
      std::cerr << "argus-bench-frontend: incremental and full parse disagree\n";
      std::exit(1);
    }
    if (i >= 0) {
      incremental_samples.push_back(incremental_ms);
      full_samples.push_back(full_ms);
    }
  }
  summarize(std::move(incremental_samples), incremental);
  summarize(std::move(full_samples), full);
  return {incremental, full};
}

void print_text(const std::vector<Row> &rows, const Settings &settings) {
  std::printf("argus front-end benchmark (%s build%s; %d runs, %d edits)\n", ARGUS_BUILD_TYPE,
              ARGUS_SANITIZED ? ", sanitizers on: not representative" : "", settings.runs,
              settings.edits);
  std::printf("cpu: %s\ngenerated files repeat: %s\n\n", cpu_model().c_str(),
              settings.input.c_str());
  std::printf("%-36s %7s %9s %8s %11s %11s\n", "case", "lines", "bytes", "samples", "median ms",
              "p90 ms");
  for (const Row &row : rows) {
    std::printf("%-36s %7zu %9zu %8zu %11.3f %11.3f%s\n", row.name.c_str(), row.lines, row.bytes,
                row.samples, row.median_ms, row.p90_ms,
                row.errors ? ("  (" + std::to_string(row.errors) + " errors)").c_str() : "");
  }
}

void print_json(const std::vector<Row> &rows, const Settings &settings) {
  nlohmann::json results = nlohmann::json::array();
  for (const Row &row : rows) {
    results.push_back({{"name", row.name},
                       {"lines", row.lines},
                       {"bytes", row.bytes},
                       {"samples", row.samples},
                       {"median_ms", row.median_ms},
                       {"p90_ms", row.p90_ms},
                       {"errors", row.errors}});
  }
  const nlohmann::json document = {{"build_type", ARGUS_BUILD_TYPE},
                                   {"sanitized", static_cast<bool>(ARGUS_SANITIZED)},
                                   {"cpu", cpu_model()},
                                   {"input", settings.input},
                                   {"runs", settings.runs},
                                   {"edits", settings.edits},
                                   {"results", results}};
  std::cout << document.dump(2) << '\n';
}

bool parse_int(const std::string &text, int minimum, int &out) {
  char *end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < minimum || value > 1000000)
    return false;
  out = static_cast<int>(value);
  return true;
}

int usage(const std::string &message) {
  std::cerr << "argus-bench-frontend: " << message << "\n"
            << "usage: argus-bench-frontend [--runs=N] [--edits=N] [--examples=DIR] "
               "[--format=text|json]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    if (name == "--runs" && parse_int(value, 1, settings.runs))
      continue;
    if (name == "--edits" && parse_int(value, 1, settings.edits))
      continue;
    if (name == "--examples" && !value.empty()) {
      settings.examples = value;
      continue;
    }
    if (name == "--format" && (value == "text" || value == "json")) {
      settings.json = value == "json";
      continue;
    }
    if (name == "--help" || name == "-h") {
      std::cout << "usage: argus-bench-frontend [--runs=N] [--edits=N] [--examples=DIR] "
                   "[--format=text|json]\n";
      return 0;
    }
    return usage("bad argument '" + arg + "'");
  }

  std::vector<Input> examples = example_inputs(settings.examples);
  const std::vector<Input> sources =
      examples.empty() ? std::vector<Input>{{"builtin", kBuiltinKernel}} : examples;
  settings.input = examples.empty() ? "the built-in GEMM kernel (no examples found)"
                                    : std::to_string(examples.size()) + " examples from " +
                                          settings.examples.string();

  std::vector<Row> rows;
  for (const size_t lines : {size_t{500}, size_t{5000}}) {
    const std::string text = generate(sources, lines);
    const std::string name = "generated-" + std::to_string(lines);
    rows.push_back(time_runs(name + " parse", text, settings.runs,
                             [&] { (void)argus::SyntaxTree::parse(text); }));
    rows.push_back(time_check(name + " check", text, settings.runs));
    auto [incremental, full] = time_edits(name, text, settings.edits);
    rows.push_back(incremental);
    rows.push_back(full);
  }
  for (const Input &example : examples)
    rows.push_back(time_check(example.name + " check", example.text, settings.runs));

  if (settings.json)
    print_json(rows, settings);
  else
    print_text(rows, settings);
  return 0;
}
