// The edits the LSP benchmark replays: what a person does to a kernel file,
// found by scanning its text (no parser, so the edits do not depend on the
// code they measure).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace argus::bench {

enum class EditKind {
  Comment,     // typing (then deleting) a word at the end of a comment
  Docstring,   // the same inside a docstring
  Whitespace,  // a trailing space added to / removed from a kernel line
  RenameLocal, // every use of a kernel's local renamed to a fresh name
  Constant,    // a module constant set to another value that checks the same
  LineAtTop,   // one more comment line at the top: every kernel moves down (only with --only)
};
inline constexpr EditKind kAllEditKinds[] = {EditKind::Comment,    EditKind::Docstring,
                                             EditKind::Whitespace, EditKind::RenameLocal,
                                             EditKind::Constant,   EditKind::LineAtTop};

const char *kind_name(EditKind kind);
// Whether the edit changes what the kernels compute (so the checker must
// prove something new); comments, docstrings and whitespace do not.
bool needs_proof(EditKind kind);

// One replacement of text[begin, end) by `text`.
struct Change {
  size_t begin = 0, end = 0;
  std::string text;
};

struct Edit {
  EditKind kind = EditKind::Comment;
  // In reverse document order: applied one after the other (as LSP does),
  // every range is still valid in the text before the edit.
  std::vector<Change> changes;
  // Where a name the edit touched starts in the edited text (hover target).
  std::optional<size_t> name_at;
};

std::string apply(const std::string &text, const Edit &edit);

// Produces an endless, deterministic mix of edits for one file. `same_checks`
// says whether a text checks with the same diagnostics as the original; it
// is asked only to pick the constant values.
class EditScript {
public:
  EditScript(const std::string &original,
             const std::function<bool(const std::string &)> &same_checks);

  // The next edit of `text` (the result of applying every earlier edit).
  Edit next(const std::string &text);
  // Which kinds this file offers (a file without docstrings has none).
  bool offers(EditKind kind) const;
  // Every later edit is of this kind instead of the mix of ten.
  void only(EditKind kind) { only_ = kind; }

private:
  Edit typing(const std::string &text, EditKind kind);
  Edit whitespace(const std::string &text);
  Edit rename(const std::string &text);
  Edit constant(const std::string &text);
  Edit line_at_top();

  std::optional<EditKind> only_;
  size_t lines_at_top_ = 0;

  size_t step_ = 0;
  // Typing: the site (n-th comment or docstring line), the word, how far typed.
  struct Typing {
    size_t site = 0, typed = 0, round = 0;
    bool deleting = false;
  } comment_, docstring_;
  size_t whitespace_step_ = 0;
  // Renames: (kernel index, original name, current name).
  struct Local {
    size_t kernel;
    std::string original, current;
  };
  std::vector<Local> locals_;
  size_t renames_ = 0;
  // The constant: its line's name and the values to cycle through.
  std::string constant_name_;
  std::vector<std::string> constant_values_;
  size_t constant_step_ = 0;
};

} // namespace argus::bench
