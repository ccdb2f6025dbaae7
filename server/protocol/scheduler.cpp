#include "argus/server/scheduler.h"
#include "argus/dsl/driver.h"

#include <algorithm>
#include <thread>

namespace argus::server {

Scheduler::Scheduler(FrontendOptions options, size_t threads)
    : options_(std::move(options)), pool_(threads) {
  options_.invariants = false; // the checker runs as its own job (check())
  options_.cache = nullptr;
  // A file's kernels on every core: a file of many kernels gets its first
  // results sooner (issue 12: big files).
  options_.checker.kernel_threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
}

FrontendOptions Scheduler::command_frontend_options(const std::atomic<bool> *cancel) const {
  FrontendOptions options = options_;
  options.invariants = true;
  options.cache = cache_.get();
  options.checker.cancel = cancel;
  options.checker.kernel_time_limit = check_time_limit_;
  return options;
}

void Scheduler::front_end(DocumentSnapshot snapshot, FrontEndDone done) {
  pool_.post([options = options_, snapshot = std::move(snapshot), done = std::move(done)] {
    if (snapshot.latest_version && snapshot.latest_version->load() != snapshot.version) {
      done(nullptr);
      return;
    }
    auto file = std::make_shared<CheckedFile>(
        check_source(snapshot.path, snapshot.text, options, snapshot.edited_tree.get()));
    done(std::move(file));
  });
}

namespace {

// What a running check knows so far, for its progress reports.
class CheckProgress {
public:
  CheckProgress(std::shared_ptr<const CheckedFile> file, Scheduler::CheckDone report)
      : file_(std::move(file)), report_(std::move(report)),
        start_(std::chrono::steady_clock::now()) {
    for (const sema::FunctionInfo &fn : file_->sema->functions)
      kernels_total_ += fn.role == sema::FunctionRole::Kernel && fn.function;
  }

  // One kernel's report is there (called one at a time by check_kernels).
  void kernel_done(size_t index, const check::KernelReport &report) {
    if (!report_)
      return;
    if (index >= kernels_.size())
      kernels_.resize(index + 1);
    Kernel &k = kernels_[index];
    k.done = true;
    k.diagnostics = check::to_diagnostics({report});
    k.summary = report.summary;
    ++kernels_done_;
    const auto now = std::chrono::steady_clock::now();
    // The last kernel's report is the whole check's, which comes next anyway.
    if (kernels_done_ >= kernels_total_ || now - start_ < Scheduler::kFirstProgress ||
        (sent_ && now - last_ < Scheduler::kProgressInterval))
      return;
    sent_ = true;
    last_ = now;
    FullCheck partial;
    partial.file = file_;
    partial.partial = true;
    partial.diagnostics = file_->diagnostics;
    for (const Kernel &kernel : kernels_) {
      if (!kernel.done)
        continue;
      partial.diagnostics.insert(partial.diagnostics.end(), kernel.diagnostics.begin(),
                                 kernel.diagnostics.end());
      partial.verification.push_back(kernel.summary);
    }
    sort_diagnostics(partial.diagnostics);
    report_(std::move(partial));
  }

private:
  struct Kernel {
    bool done = false;
    std::vector<Diagnostic> diagnostics;
    check::VerificationSummary summary;
  };
  std::shared_ptr<const CheckedFile> file_;
  Scheduler::CheckDone report_;
  std::chrono::steady_clock::time_point start_, last_;
  bool sent_ = false;
  size_t kernels_total_ = 0, kernels_done_ = 0;
  std::vector<Kernel> kernels_;
};

} // namespace

void Scheduler::check(std::shared_ptr<const CheckedFile> file,
                      std::shared_ptr<const std::atomic<bool>> cancel, CheckDone done,
                      CheckDone progress, std::optional<uint32_t> priority_line) {
  check::CheckerOptions options = options_.checker;
  // The limit is each kernel's, so every kernel of a big file is checked.
  options.kernel_time_limit = check_time_limit_;
  pool_.post([this, options, file = std::move(file), cancel = std::move(cancel),
              done = std::move(done), progress = std::move(progress), priority_line]() mutable {
    options.cancel = cancel.get();
    FullCheck result;
    result.diagnostics = file->diagnostics;
    if (!options.cancelled() && file->sema && !file->has_errors()) {
      try {
        CheckProgress so_far(file, std::move(progress));
        const std::vector<check::KernelReport> reports = check::check_kernels(
            *file, options, cache_.get(),
            [&so_far](size_t index, const check::KernelReport &report) {
              so_far.kernel_done(index, report);
            },
            priority_line);
        result.interrupted = std::any_of(reports.begin(), reports.end(),
                                         [](const auto &r) { return r.interrupted; });
        for (Diagnostic &d : check::to_diagnostics(reports))
          result.diagnostics.push_back(std::move(d));
        for (const check::KernelReport &r : reports)
          result.verification.push_back(r.summary);
        sort_diagnostics(result.diagnostics);
      } catch (...) {
        // check_kernels turns a kernel's failure into a W0901 itself; whatever
        // escapes still ends with an answer, or the document would wait forever.
        result.diagnostics = file->diagnostics;
        result.verification.clear();
        result.interrupted = true;
      }
    }
    result.interrupted = result.interrupted || options.cancelled();
    result.file = std::move(file);
    done(std::move(result));
  });
}

} // namespace argus::server
