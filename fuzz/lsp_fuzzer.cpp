// libFuzzer target: bytes → Content-Length framing → JSON → the whole server
// (lifecycle, documents, requests, cancellation) in process, answering into a
// string. It must never crash or hang; whatever it writes must be well-framed
// JSON-RPC, and run() must end with status 0 or 1.

#include "fuzz_budgets.h"

#include "argus/server/log.h"
#include "argus/server/server.h"
#include "argus/server/transport.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "lsp_fuzzer: %s: %.400s\n", what, detail.c_str());
  std::abort();
}

// Every message the server wrote is `Content-Length: N\r\n\r\n` + N bytes of a
// JSON-RPC 2.0 object.
void check_output(const std::string &out) {
  constexpr std::string_view kHeader = "Content-Length: ";
  size_t at = 0;
  while (at < out.size()) {
    const size_t header_end = out.find("\r\n\r\n", at);
    if (header_end == std::string::npos || out.compare(at, kHeader.size(), kHeader) != 0)
      fail("bad frame header", out.substr(at, 100));
    const std::string digits = out.substr(at + kHeader.size(), header_end - at - kHeader.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
      fail("bad Content-Length", digits);
    const size_t length = std::stoul(digits);
    const size_t body = header_end + 4;
    if (body + length > out.size())
      fail("frame longer than the output", digits);
    const nlohmann::json message =
        nlohmann::json::parse(out.begin() + static_cast<std::ptrdiff_t>(body),
                              out.begin() + static_cast<std::ptrdiff_t>(body + length), nullptr,
                              /*allow_exceptions=*/false);
    if (!message.is_object() || message.value("jsonrpc", "") != "2.0")
      fail("body is not a JSON-RPC 2.0 object", out.substr(body, length));
    if (!message.contains("method") && !message.contains("id"))
      fail("neither a notification nor a response", message.dump());
    if (message.contains("error") && !message["error"].value("code", nlohmann::json()).is_number())
      fail("error without a code", message.dump());
    at = body + length;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
  std::ostringstream out;
  std::ostream no_log(nullptr); // logs are formatted, then dropped
  argus::server::Logger log(no_log, argus::server::LogLevel::Info);
  argus::server::Transport transport(in, out, log);
  argus::server::ServerOptions options;
  options.version = "fuzz";
  options.frontend = argus::fuzz::fuzz_frontend_options();
  // The checker itself is argus_check_fuzzer's job: here it only has to produce
  // diagnostics and fixes for the protocol code, as cheaply as possible, so
  // that many messages per second go through (a client may switch Z3 back on).
  options.frontend.checker.symbolic = false;
  options.frontend.checker.max_steps = 1'000;
  // Z3's queries are bounded one by one (fuzz_budgets.h); this bounds each
  // kernel's check (the limit is per kernel since a big file's last kernels
  // must be checked too). An input re-checks its documents on every settings
  // change and fix, so their sum must stay well under libFuzzer's -timeout:
  // 2 s per kernel let one input of CI's run take 12 s
  // (regressions/lsp/timeout-792e15c181643e0d-drain-stall).
  options.check_time_limit = std::chrono::milliseconds(300);
  argus::server::Server server(transport, log, std::move(options));
  const int status = server.run();
  if (status != 0 && status != 1)
    fail("run() returned neither 0 nor 1", std::to_string(status));
  check_output(out.str());
  return 0;
}
