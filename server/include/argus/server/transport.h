// JSON-RPC framing of LSP: `Content-Length: N\r\n\r\n` followed by N bytes of
// JSON, over any std::istream / std::ostream (stdin/stdout in `argus lsp`,
// string streams in the tests).
#pragma once

#include "argus/server/log.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <istream>
#include <mutex>
#include <ostream>
#include <string>

namespace argus::server {

// The largest body the server accepts; longer frames are refused unread.
inline constexpr size_t kMaxMessageBytes = size_t{64} << 20;

struct ReadResult {
  enum class Kind {
    Message,    // `message` holds a parsed JSON value
    ParseError, // a frame whose body was not JSON: answer -32700 and keep reading
    End,        // the stream ended (cleanly or in the middle of a frame)
  };
  Kind kind = Kind::End;
  // Message: the value. ParseError: the request's id when it could still be
  // read (a body that is JSON but for invalid UTF-8), else null.
  nlohmann::json message;
  std::string error; // what was wrong, for the log and the -32700 message
};

// Reads and writes framed messages. Header problems (a missing, malformed,
// conflicting or absurd Content-Length; a line that is no header) are logged
// and the reader resynchronises on the next `Content-Length:` header; unknown
// headers are ignored. Never throws on bad input.
class Transport {
public:
  Transport(std::istream &in, std::ostream &out, Logger &log) : in_(in), out_(out), log_(log) {}

  ReadResult read();
  // Thread-safe: workers answer requests and report progress themselves.
  // Reading is for one thread only. A failed write (the client closed its
  // end) is logged once; the server goes on until its input ends.
  void write(const nlohmann::json &message);

private:
  // Reads one line without its terminator (at most a bounded prefix is kept);
  // false at end of stream.
  bool read_line(std::string &line);

  std::istream &in_;
  std::ostream &out_;
  Logger &log_;
  std::mutex write_mutex_;
  bool write_failed_ = false; // logged once: the client is gone
};

} // namespace argus::server
