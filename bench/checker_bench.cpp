// argus-bench-checker: how long the invariant checker takes.
//
//   argus-bench-checker [--runs=N] [--format=text|json]
//
// Rows (median and 90th percentile of N runs after one warm-up, in ms):
//   examples/X.argus check     check_kernels of each example, no cache
//   examples/X.argus recheck   the same with a warm CheckCache (an untouched kernel)
//   tests/checker/corpus       every corpus file, one after the other
//   block T                    a generated tiled copy with T threads per block
//   unroll U                   a generated kernel whose loop runs U iterations
// The front end runs once per input outside the timed region.
#include "argus/dsl/checker.h"
#include "argus/dsl/driver.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("model name")) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Row {
  std::string name;
  double median = 0, p90 = 0;
  size_t violations = 0;
  int64_t blocks = 0, proofs = 0;
};

Row measure(const std::string &name, int runs, const std::function<Row()> &once) {
  std::vector<double> samples;
  Row last;
  for (int i = -1; i < runs; ++i) {
    const auto start = Clock::now();
    last = once();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (i >= 0)
      samples.push_back(ms);
  }
  std::sort(samples.begin(), samples.end());
  last.name = name;
  last.median = samples[samples.size() / 2];
  last.p90 = samples[std::min(samples.size() - 1, (samples.size() * 9 + 9) / 10 - 1)];
  return last;
}

argus::CheckedFile front_end(const std::string &name, const std::string &text) {
  argus::FrontendOptions o;
  o.invariants = false;
  return argus::check_source(name, text, o);
}

Row check_once(const argus::CheckedFile &file, const argus::check::CheckerOptions &options,
               argus::check::CheckCache *cache) {
  Row r;
  for (const auto &k : argus::check::check_kernels(file, options, cache)) {
    r.violations += k.violations.size();
    r.blocks += k.blocks_run;
    r.proofs += k.proofs;
  }
  return r;
}

// A tile copied through shared memory with a barrier, then read back by
// another thread: every access goes through the write log.
std::string block_kernel(int threads) {
  return "T = " + std::to_string(threads) +
         "\n@kernel(grid=cdiv(N, T), block=T)\n"
         "def copy(X: Tensor((N,), f32), Y: Tensor((N,), f32), N: i32):\n"
         "    assume(N % T == 0)\n"
         "    tag(X, (\"i\",))\n"
         "    tag(Y, (\"i\",))\n"
         "    s = make_shared((T,), f32)\n"
         "    t = thread_id()\n"
         "    base = block_id() * T\n"
         "    s[t] = X[base + t]\n"
         "    syncthreads()\n"
         "    v = s[T - 1 - t]\n"
         "    assert_tag(v, {\"i\": base + T - 1 - t})\n"
         "    Y[base + T - 1 - t] = v\n"
         "    assert_covered(Y)\n";
}

std::string unroll_kernel(int iterations) {
  return "U = " + std::to_string(iterations) +
         "\n@kernel(grid=1, block=128)\n"
         "def sum(X: Tensor((128, U), f32), Y: Tensor((128,), f32)):\n"
         "    tag(X, (\"m\", \"k\"))\n"
         "    tag(Y, (\"m\",))\n"
         "    acc: f32 = 0.0\n"
         "    for k in range(0, U):\n"
         "        acc += X[thread_id(), k]\n"
         "    assert_tag(acc, {\"m\": thread_id()})\n"
         "    Y[thread_id()] = acc\n";
}

} // namespace

int main(int argc, char **argv) {
  int runs = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--runs=", 0) == 0)
      runs = std::max(1, std::atoi(a.c_str() + 7));
    else if (a == "--format=json")
      json = true;
    else if (a != "--format=text") {
      std::cerr << "usage: argus-bench-checker [--runs=N] [--format=text|json]\n";
      return 2;
    }
  }
  const fs::path root = ARGUS_SOURCE_DIR;
  argus::check::CheckerOptions options;
  std::vector<Row> rows;
  std::vector<fs::path> examples;
  for (const auto &e : fs::directory_iterator(root / "examples"))
    if (e.path().extension() == ".argus")
      examples.push_back(e.path());
  std::sort(examples.begin(), examples.end());
  for (const fs::path &p : examples) {
    const argus::CheckedFile file = front_end(p.filename().string(), read_file(p));
    const std::string name = "examples/" + p.filename().string();
    rows.push_back(
        measure(name + " check", runs, [&] { return check_once(file, options, nullptr); }));
    argus::check::CheckCache cache;
    check_once(file, options, &cache);
    rows.push_back(
        measure(name + " recheck", runs * 20, [&] { return check_once(file, options, &cache); }));
  }
  std::vector<argus::CheckedFile> corpus;
  std::vector<fs::path> corpus_paths;
  for (const auto &e : fs::directory_iterator(root / "tests" / "checker" / "corpus"))
    if (e.path().extension() == ".argus")
      corpus_paths.push_back(e.path());
  std::sort(corpus_paths.begin(), corpus_paths.end());
  for (const fs::path &p : corpus_paths)
    corpus.push_back(front_end(p.filename().string(), read_file(p)));
  rows.push_back(measure("tests/checker/corpus (" + std::to_string(corpus.size()) + " files)",
                         std::max(1, runs / 2), [&] {
                           Row total;
                           for (const auto &f : corpus) {
                             Row r = check_once(f, options, nullptr);
                             total.violations += r.violations;
                             total.blocks += r.blocks;
                             total.proofs += r.proofs;
                           }
                           return total;
                         }));
  for (int t : {64, 128, 256, 512, 1024}) {
    const argus::CheckedFile file = front_end("block.argus", block_kernel(t));
    rows.push_back(measure("block " + std::to_string(t), runs,
                           [&] { return check_once(file, options, nullptr); }));
  }
  for (int u : {16, 64, 256}) {
    const argus::CheckedFile file = front_end("unroll.argus", unroll_kernel(u));
    rows.push_back(measure("unroll " + std::to_string(u), runs,
                           [&] { return check_once(file, options, nullptr); }));
  }
  if (json) {
    nlohmann::json out = {
        {"cpu", cpu_model()}, {"build", ARGUS_BUILD_TYPE}, {"rows", nlohmann::json::array()}};
    for (const Row &r : rows)
      out["rows"].push_back({{"name", r.name},
                             {"median_ms", r.median},
                             {"p90_ms", r.p90},
                             {"violations", r.violations},
                             {"blocks", r.blocks},
                             {"proofs", r.proofs}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("argus-bench-checker: %s, %s build, %d runs\n", cpu_model().c_str(), ARGUS_BUILD_TYPE,
              runs);
  std::printf("%-46s %10s %10s %6s %7s %7s\n", "input", "median ms", "p90 ms", "viol.", "blocks",
              "proofs");
  for (const Row &r : rows)
    std::printf("%-46s %10.3f %10.3f %6zu %7lld %7lld\n", r.name.c_str(), r.median, r.p90,
                r.violations, static_cast<long long>(r.blocks), static_cast<long long>(r.proofs));
  return 0;
}
