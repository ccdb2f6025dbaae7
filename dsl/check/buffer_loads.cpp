// amdgpu.raw_buffer_load_x{1,2,4}: a load through a buffer resource for the
// tensor's base whose num_records is the tensor's size in bytes (codegen's
// argus_buffer_rsrc). The hardware checks each 32-bit word of the load
// against it, with the offset taken as unsigned: a word past the end (or
// before the base) reads as zero, any other word is read at its linear
// offset, whatever the coordinates were. So an index outside its dimension
// is not an error here: rows past the tensor's end read zeros (the ragged
// tiles this load is used for), and a column past its row reads the next
// row's element, whose tag then says so.
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

Value Machine::buffer_load(const ast::Expr &call, const Mask &m) {
  if (call.arg_count() < 1)
    return Value{};
  range_checked_by_hardware_ = &call.arg(0);
  Value src = eval(call.arg(0), m);
  range_checked_by_hardware_ = nullptr;
  if (src.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker has no view (of one tensor for every thread) for "
                                "this buffer load's source");
    return Value{};
  }
  View v = *src.view;
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (b.space != MemorySpace::Global) {
    // Sema allows global views only; anything else is not a buffer resource.
    not_interpreted(call.range, "a buffer load reads a global tensor");
    return Value{};
  }
  lint_global_access(v, m, call.range, false);
  const int64_t n = v.elements();
  const int64_t element_bytes = dtype_bytes(v.dtype);
  const int64_t records = b.cells * b.cell_bytes; // num_records: the tensor's bytes
  v.bad.clear(); // an index past its dimension: the linear offset decides

  Value out = make_data(v.dtype, static_cast<int>(n), sema::is_float(v.dtype));
  out.tags.assign(out.ints.size(), Tag{});
  current_site_ = site_of(call.range);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)])
      continue;
    for (int64_t e = 0; e < n; ++e) {
      const size_t slot = static_cast<size_t>(lane * n + e);
      // The words this element lies in (an element of 8 bytes is zero when
      // either word is out of range; a tensor's last partial word counts as
      // out of range).
      const int64_t byte = element_byte_offset(v, lane, e);
      const int64_t first_word = byte >= 0 ? byte / 4 * 4 : -1;
      const int64_t end = std::max<int64_t>(first_word + 4, byte + element_bytes);
      if (first_word < 0 || end > records) {
        out.tags[slot].zero = true; // the hardware's zero for a word out of range
        out.ints[slot] = 0;
        continue;
      }
      Tag t;
      int64_t value = 0;
      if (read_element(v, lane, e, call.range, t, value)) {
        out.tags[slot] = t;
        out.ints[slot] = value;
      }
    }
  }
  return out;
}

} // namespace argus::check::detail
