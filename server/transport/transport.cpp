#include "argus/server/transport.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string_view>

namespace argus::server {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size() || (n == 2 && c < 0xC2))
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) >> 6) != 2)
      return 0;
  if (n == 3) {
    const unsigned cp = ((c & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
  }
  if (n == 4) {
    const unsigned cp = ((c & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12);
    if (cp < 0x10000 || cp > 0x10FFFF)
      return 0;
  }
  return n;
}

size_t first_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0)
      return i;
    i += n;
  }
  return s.size();
}

// Every byte that starts no valid sequence becomes U+FFFD.
std::string replace_invalid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

} // namespace
namespace {

constexpr size_t kMaxLineBytes = 64 * 1024;
constexpr std::string_view kLengthHeader = "content-length:";

std::string lower(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

// The value of a Content-Length header; nullopt when it is no decimal number.
std::optional<size_t> parse_length(std::string_view value) {
  value = trim(value);
  size_t length = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty())
    return std::nullopt;
  return length;
}

} // namespace

bool Transport::read_line(std::string &line) {
  line.clear();
  std::streambuf *buffer = in_.rdbuf();
  bool any = false;
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in_.setstate(std::ios::eofbit);
      return any;
    }
    any = true;
    if (c == '\n')
      break;
    if (line.size() < kMaxLineBytes)
      line.push_back(static_cast<char>(c));
  }
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return true;
}

ReadResult Transport::read() {
  std::string line;
  for (;;) {
    // One frame's header block.
    size_t length = 0;
    bool has_length = false;
    bool bad = false;
    bool any_header = false;
    for (;;) {
      if (!read_line(line)) {
        if (any_header)
          log_.error("stream ended inside a message header");
        return ReadResult{ReadResult::Kind::End, nullptr, "end of input"};
      }
      if (line.empty())
        break;
      // A header glued to garbage (e.g. after a too-short Content-Length):
      // resynchronise on it.
      const std::string lowered = lower(line);
      const size_t at = lowered.find(kLengthHeader);
      if (at != std::string::npos && at > 0) {
        log_.error("skipping " + std::to_string(at) + " bytes of garbage before a header");
        line.erase(0, at);
      }
      const size_t colon = line.find(':');
      if (colon == std::string::npos) {
        // Garbage: whatever headers came before belong to no usable frame.
        log_.error("ignoring a line that is no header: " + line.substr(0, 80));
        has_length = false;
        bad = false;
        any_header = false;
        continue;
      }
      any_header = true;
      const std::string name = lower(trim(std::string_view(line).substr(0, colon)));
      const std::string_view value = std::string_view(line).substr(colon + 1);
      if (name != "content-length") {
        if (name != "content-type")
          log_.debug("ignoring unknown header " + name);
        continue;
      }
      const std::optional<size_t> parsed = parse_length(value);
      if (!parsed) {
        log_.error("invalid Content-Length: " + std::string(trim(value)).substr(0, 80));
        bad = true;
      } else if (has_length && length != *parsed) {
        log_.error("conflicting Content-Length headers");
        bad = true;
      } else {
        length = *parsed;
        has_length = true;
      }
    }
    if (!any_header && !bad)
      continue; // a stray blank line between frames
    if (!has_length) {
      if (!bad)
        log_.error("message without Content-Length, skipped");
      continue;
    }
    if (bad) {
      log_.error("malformed header, message skipped");
      continue;
    }
    if (length > kMaxMessageBytes) {
      log_.error("refusing a message of " + std::to_string(length) + " bytes (limit " +
                 std::to_string(kMaxMessageBytes) + ")");
      continue;
    }
    std::string body(length, '\0');
    const std::streamsize got =
        in_.rdbuf()->sgetn(body.data(), static_cast<std::streamsize>(length));
    if (got != static_cast<std::streamsize>(length)) {
      log_.error("stream ended inside a message body (" + std::to_string(got) + " of " +
                 std::to_string(length) + " bytes)");
      return ReadResult{ReadResult::Kind::End, nullptr, "truncated message"};
    }
    log_.debug("<-- " + body.substr(0, 2000));
    nlohmann::json message = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) {
      // JSON but for its encoding: the id is still worth answering with.
      const std::string repaired = replace_invalid_utf8(body);
      if (repaired != body) {
        const auto salvaged = nlohmann::json::parse(repaired, nullptr, false);
        if (!salvaged.is_discarded()) {
          log_.error("message body is not valid UTF-8");
          nlohmann::json id;
          if (salvaged.is_object() && salvaged.contains("method") && salvaged.contains("id") &&
              (salvaged["id"].is_string() || salvaged["id"].is_number_integer()))
            id = salvaged["id"];
          return ReadResult{ReadResult::Kind::ParseError, std::move(id),
                            "message body is not valid UTF-8 (byte " +
                                std::to_string(first_invalid_utf8(body)) + ")"};
        }
      }
      log_.error("message body is not JSON");
      return ReadResult{ReadResult::Kind::ParseError, nullptr, "message body is not valid JSON"};
    }
    return ReadResult{ReadResult::Kind::Message, std::move(message), {}};
  }
}

void Transport::write(const nlohmann::json &message) {
  const std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  log_.debug("--> " + body.substr(0, 2000));
  std::lock_guard<std::mutex> lock(write_mutex_);
  out_ << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out_.flush();
  if (!out_ && !write_failed_) {
    write_failed_ = true;
    log_.error("cannot write to the client (its end of stdout is closed?)");
  }
}

} // namespace argus::server
