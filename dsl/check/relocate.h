// Internal: a cached kernel report moved to where its text is now.
#pragma once

#include "argus/dsl/checker.h"

#include <optional>
#include <vector>

namespace argus::check::detail {

// `report` was computed while its segments (KernelReport::segments) lay
// where it says; `now` are the same segments (same tokens, lines counted from
// each segment's start) in the current text. Every position the report holds
// is shifted by the line displacement of the segment it lies in: violation
// and related ranges, data's `program_point` and `origin`, the ranges of the
// fix edits in data's `edits`, and the "line N:" of `bounded_loops`. Columns
// are kept (the key holds them, so a segment that moved sideways has another
// key). nullopt when a position lies in no segment: the caller re-checks.
std::optional<KernelReport> relocate(KernelReport report, const std::vector<Range> &now);

} // namespace argus::check::detail
