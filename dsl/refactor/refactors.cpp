// refactors_at: the kernels under the range, their baseline check, and each
// refactor's verified candidates.
#include "common.h"

#include <optional>

namespace argus::refactor {

const std::vector<std::string_view> &refactor_ids() {
  static const std::vector<std::string_view> ids = {"vectorize-copy", "pad-shared",
                                                    "double-buffer"};
  return ids;
}

std::vector<Refactor> refactors_at(const CheckedFile &file, Range range,
                                   const check::CheckerOptions &options) {
  std::vector<Refactor> out;
  if (!file.sema || file.has_errors())
    return out;
  check::CheckerOptions baseline_options = options;
  baseline_options.fixes = false;
  check::CheckCache cache;
  std::optional<std::vector<check::KernelReport>> reports; // checked on first need
  for (const sema::FunctionInfo &info : file.sema->functions) {
    if (info.role != sema::FunctionRole::Kernel || !info.function ||
        !detail::overlaps(info.function->range, range))
      continue;
    const std::string &name = info.function->name;
    check::KernelReport missing;
    missing.kernel = name;
    auto baseline = [&]() -> const check::KernelReport & {
      if (!reports)
        reports = check::check_kernels(file, baseline_options, &cache);
      for (const check::KernelReport &r : *reports)
        if (r.kernel == name)
          return r;
      return missing;
    };
    const detail::KernelContext kernel{file,     *info.function,   range,
                                       baseline, baseline_options, cache};
    for (auto *compute : {&detail::vectorize_copy, &detail::pad_shared, &detail::double_buffer})
      for (Refactor &r : compute(kernel))
        out.push_back(std::move(r));
  }
  return out;
}

} // namespace argus::refactor
