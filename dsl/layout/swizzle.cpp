// Swizzle<B,M,S> and swizzled layouts.
#include "argus/layout/layout.h"
#include "checked.h"

#include <bit>

namespace argus::layout {

using detail::fail;
using detail::guard;

namespace {

uint64_t low_bits(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// `bits` ones shifted left by `at`; 0 for parameters outside [0, 63] (a Swizzle
// built by hand rather than by make_swizzle must not shift out of range).
uint64_t run_of_bits(int bits, int64_t at) {
  if (bits <= 0 || bits > 63 || at < 0 || at > 63)
    return 0;
  return low_bits(bits) << at;
}

} // namespace

uint64_t Swizzle::yyy_mask() const {
  return run_of_bits(bits, int64_t{base} + (shift > 0 ? shift : 0));
}

uint64_t Swizzle::zzz_mask() const {
  return run_of_bits(bits, int64_t{base} - (shift < 0 ? int64_t{shift} : 0));
}

int64_t Swizzle::operator()(int64_t offset) const {
  const uint64_t x = static_cast<uint64_t>(offset);
  const uint64_t y = x & yyy_mask();
  if (shift > 63 || shift < -63)
    return offset;
  const uint64_t flip = shift >= 0 ? y >> shift : y << -shift;
  return static_cast<int64_t>(x ^ flip);
}

Result<Swizzle> make_swizzle(int bits, int base, int shift) {
  const std::string name = "Swizzle<" + std::to_string(bits) + "," + std::to_string(base) + "," +
                           std::to_string(shift) + ">";
  if (bits < 0 || base < 0)
    return Error{name + " is not valid: B and M must be non-negative"};
  if (bits > 62 || base > 62 || shift > 62 || shift < -62)
    return Error{name + " is not valid: B, M and |S| must be below 63"};
  const int magnitude = shift < 0 ? -shift : shift;
  if (magnitude < bits)
    return Error{name + " is not valid: |S| = " + std::to_string(magnitude) +
                 " must be at least B = " + std::to_string(bits) +
                 " (the bits read and the bits flipped would overlap)"};
  if (bits + base + magnitude > 63)
    return Error{name + " is not valid: its masks reach past bit 62"};
  return Swizzle{bits, base, shift};
}

Result<Swizzle> make_swizzle_from_masks(uint64_t yyy_mask, uint64_t zzz_mask) {
  const auto hex = [](uint64_t v) {
    static const char *digits = "0123456789abcdef";
    std::string out;
    do {
      out.insert(out.begin(), digits[v & 15]);
      v >>= 4;
    } while (v);
    return "0x" + out;
  };
  const std::string name = "the masks " + hex(yyy_mask) + ", " + hex(zzz_mask);
  const int bits = std::popcount(yyy_mask);
  if (std::popcount(zzz_mask) != bits)
    return Error{name + " do not describe a swizzle: they have different bit counts"};
  if (bits == 0)
    return Swizzle{0, 0, 0};
  const int y_low = std::countr_zero(yyy_mask);
  const int z_low = std::countr_zero(zzz_mask);
  if ((yyy_mask >> y_low) != low_bits(bits) || (zzz_mask >> z_low) != low_bits(bits))
    return Error{name + " do not describe a swizzle: a mask is not one run of bits"};
  if (yyy_mask & zzz_mask)
    return Error{name + " do not describe a swizzle: they overlap"};
  return make_swizzle(bits, y_low < z_low ? y_low : z_low, y_low - z_low);
}

std::string to_string(const Swizzle &s) {
  return "Sw<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," +
         std::to_string(s.shift) + ">";
}

Result<SwizzledLayout> composition(const Swizzle &swizzle, const Layout &layout,
                                   int64_t element_bytes) {
  if (element_bytes < 1 || !std::has_single_bit(static_cast<uint64_t>(element_bytes)))
    return Error{"element size " + std::to_string(element_bytes) +
                 " bytes is not a positive power of two"};
  const int log_bytes = std::countr_zero(static_cast<uint64_t>(element_bytes));
  if (swizzle.bits > 0 && swizzle.base < log_bytes)
    return Error{to_string(swizzle) + " on byte addresses would move bytes inside " +
                 std::to_string(element_bytes) + "-byte elements (M = " +
                 std::to_string(swizzle.base) + " < log2(" + std::to_string(element_bytes) + "))"};
  return SwizzledLayout{swizzle, layout, element_bytes};
}

Result<int64_t> byte_offset(const SwizzledLayout &l, int64_t index) {
  return guard([&] {
    const int64_t offset = detail::take(evaluate(l.layout, index));
    return l.swizzle(detail::mul(offset, l.element_bytes));
  });
}

Result<int64_t> evaluate(const SwizzledLayout &l, int64_t index) {
  return guard([&] {
    const int64_t bytes = detail::take(byte_offset(l, index));
    return detail::floor_div(bytes, l.element_bytes);
  });
}

std::string to_string(const SwizzledLayout &l) {
  std::string out = to_string(l.swizzle) + " o " + to_string(l.layout);
  if (l.element_bytes != 1)
    out += " (byte-address swizzle, " + std::to_string(l.element_bytes) + "-byte elements)";
  return out;
}

} // namespace argus::layout
