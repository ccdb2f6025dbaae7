// libFuzzer target: bytes → argus::check_source (parse, lower, sema and the
// invariant checker with small budgets). It must never crash or hang, and
// every diagnostic must point inside the text it was given.

#include "fuzz_budgets.h"

#include "argus/dsl/driver.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

bool inside(const argus::SourceFile &source, argus::Position pos) {
  return pos.line < source.line_count() && pos.column <= source.line(pos.line).size();
}

[[noreturn]] void fail(const char *what, const argus::Diagnostic &d) {
  std::fprintf(stderr, "check_fuzzer: %s: %s %s\n", what, d.code.c_str(), d.message.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const argus::FrontendOptions budgets = argus::fuzz::fuzz_frontend_options();
  // Z3's queries are bounded one by one; a deadline bounds their sum, well
  // under libFuzzer's -timeout, which runs an input twice (leak detection).
  argus::FrontendOptions options = budgets;
  options.checker.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::string text(reinterpret_cast<const char *>(data), size);
  const argus::CheckedFile checked = argus::check_source("fuzz.argus", std::move(text), options);
  if (!checked.source)
    std::abort();
  for (const argus::Diagnostic &d : checked.diagnostics) {
    if (!inside(*checked.source, d.range.begin) || !inside(*checked.source, d.range.end))
      fail("diagnostic range outside the text", d);
    if (checked.source->offset(d.range.end) < checked.source->offset(d.range.begin))
      fail("reversed diagnostic range", d);
    if (d.code.empty() || d.message.empty())
      fail("diagnostic without code or message", d);
    for (const argus::RelatedInformation &related : d.related)
      if (!inside(*checked.source, related.range.begin) ||
          !inside(*checked.source, related.range.end))
        fail("related information outside the text", d);
  }
  return 0;
}
