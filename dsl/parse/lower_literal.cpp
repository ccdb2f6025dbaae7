// Numbers and strings: Python literal syntax → values (no tree-sitter here).
#include "lower_internal.h"

#include <charconv>
#include <cstdint>
#include <limits>

namespace argus::lower_detail {
namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

std::string without_underscores(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c != '_')
      out.push_back(c);
  }
  return out;
}

void append_utf8(std::string &out, uint32_t code_point) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

} // namespace

std::string parse_int_literal(std::string_view text, IntLiteral &out) {
  out = IntLiteral{};
  if (!text.empty() && (text.back() == 'j' || text.back() == 'J')) {
    out.complex = true;
    return {};
  }
  if (!text.empty() && (text.back() == 'l' || text.back() == 'L'))
    return "the 'L' suffix of Python 2 long integers is not valid; write the number without it";
  const std::string digits_text = without_underscores(text);
  std::string_view digits = digits_text;
  unsigned base = 10;
  if (digits.size() > 1 && digits[0] == '0') {
    const char prefix = digits[1];
    if (prefix == 'x' || prefix == 'X')
      base = 16;
    else if (prefix == 'o' || prefix == 'O')
      base = 8;
    else if (prefix == 'b' || prefix == 'B')
      base = 2;
    if (base != 10) {
      digits.remove_prefix(2);
    } else if (digits.find_first_not_of('0') != std::string_view::npos) {
      return "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
             "octal integers";
    }
  }
  if (digits.empty())
    return "integer literal '" + std::string(text) + "' has no digits";
  constexpr uint64_t kLimit = uint64_t{1} << 63; // |INT64_MIN|
  uint64_t value = 0;
  for (const char c : digits) {
    const auto d = static_cast<unsigned>(digit_value(c));
    if (d >= base)
      return "invalid digit '" + std::string(1, c) + "' in integer literal '" + std::string(text) +
             "'";
    if (value > (kLimit - d) / base)
      return "integer literal " + std::string(text) + " does not fit in 64 bits (i64)";
    value = value * base + d;
  }
  out.magnitude = value;
  return {};
}

std::string parse_float_literal(std::string_view text, double &out, bool &complex) {
  out = 0.0;
  complex = false;
  if (!text.empty() && (text.back() == 'j' || text.back() == 'J')) {
    complex = true;
    return {};
  }
  const std::string digits = without_underscores(text);
  const char *first = digits.data();
  const char *last = first + digits.size();
  const auto [ptr, ec] = std::from_chars(first, last, out, std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    return "float literal " + std::string(text) + " is out of range for f64";
  if (ec != std::errc() || ptr != last)
    return "invalid float literal '" + std::string(text) + "'";
  return {};
}

std::string unescape_string(std::string_view body, std::string &out, size_t &bad_offset,
                            size_t &bad_length) {
  out.clear();
  out.reserve(body.size());
  for (size_t i = 0; i < body.size();) {
    const char c = body[i];
    if (c != '\\') {
      out.push_back(c);
      ++i;
      continue;
    }
    bad_offset = i;
    if (i + 1 >= body.size()) {
      bad_length = 1;
      return "a string cannot end with a single backslash";
    }
    const char e = body[i + 1];
    i += 2;
    switch (e) {
    case '\n':
      continue; // line continuation inside the string
    case '\r':
      if (i < body.size() && body[i] == '\n')
        ++i;
      continue;
    case '\\':
    case '\'':
    case '"':
      out.push_back(e);
      continue;
    case 'a':
      out.push_back('\a');
      continue;
    case 'b':
      out.push_back('\b');
      continue;
    case 'f':
      out.push_back('\f');
      continue;
    case 'n':
      out.push_back('\n');
      continue;
    case 'r':
      out.push_back('\r');
      continue;
    case 't':
      out.push_back('\t');
      continue;
    case 'v':
      out.push_back('\v');
      continue;
    default:
      break;
    }
    if (e >= '0' && e <= '7') {
      uint32_t value = static_cast<uint32_t>(e - '0');
      for (int n = 1; n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++n, ++i)
        value = value * 8 + static_cast<uint32_t>(body[i] - '0');
      append_utf8(out, value);
      continue;
    }
    size_t hex_digits = 0;
    if (e == 'x')
      hex_digits = 2;
    else if (e == 'u')
      hex_digits = 4;
    else if (e == 'U')
      hex_digits = 8;
    if (hex_digits == 0) {
      bad_length = 2;
      if (e == 'N')
        return "named unicode escapes (\\N{...}) are not supported in Argus strings";
      return "invalid escape sequence '\\" + std::string(1, e) + "'";
    }
    uint32_t value = 0;
    for (size_t n = 0; n < hex_digits; ++n, ++i) {
      const int d = i < body.size() ? digit_value(body[i]) : 99;
      if (d >= 16) {
        bad_length = i - bad_offset;
        return "truncated \\" + std::string(1, e) + " escape: expected " +
               std::to_string(hex_digits) + " hex digits";
      }
      value = value * 16 + static_cast<uint32_t>(d);
    }
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
      bad_length = i - bad_offset;
      return "escape sequence does not name a valid unicode code point";
    }
    append_utf8(out, value);
  }
  return {};
}

} // namespace argus::lower_detail
