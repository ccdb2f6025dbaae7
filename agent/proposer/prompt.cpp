// What the model is told and how its answer is read (llm_proposer.h); no
// HTTP here, so the static argus has it too.
#include "argus/agent/llm_proposer.h"

namespace argus::agent {

using nlohmann::json;

std::vector<json> proposal_messages(const ProposalContext &c) {
  std::string system =
      "You optimize GPU kernels written in Argus, a Python-like language whose data movement is "
      "checked by tags and assertions. Answer with the whole new file in one fenced code block, "
      "or with a unified diff against the current file in a ```diff block (against the refused "
      "version in a repair), and nothing else of substance. Keep every assert_tag, assert_tag_eq "
      "and assert_covered, "
      "and add the invariants the technique lists: a version that proves less than the current "
      "one is refused.";
  std::string user = "Kernel to optimize: `" + c.kernel + "`.\n\n";
  if (c.technique) {
    user += "Technique: " + c.technique->title + " (" + c.technique->id + ").\n";
    for (const std::string &name : knowledge_sections()) // in the entry's order
      if (auto it = c.technique->sections.find(name); it != c.technique->sections.end())
        user += "### " + name + "\n" + it->second + "\n";
  } else {
    user += "Technique: your choice.\n";
  }
  if (!c.measurement.empty())
    user += "\nLast measurement: " + c.measurement + "\n";
  if (!c.trajectory.empty())
    user += "\nWhat was tried so far:\n" + c.trajectory + "\n";
  user += "\nDiagnostics of the current file (with counterexamples):\n" + c.diagnostics.dump(1) +
          "\n\nThe current file:\n```python\n" + c.file_text + "```\n";
  if (!c.rejection.empty())
    user += "\nYour last version was refused: " + c.rejection +
            "\nFix it. The refused version:\n```python\n" + c.rejected_text + "```\n";
  return {{{"role", "system"}, {"content", system}}, {{"role", "user"}, {"content", user}}};
}

std::optional<std::string> file_from_answer(const std::string &answer, const std::string &base) {
  const auto is_diff = [](const std::string &block, const std::string &info) {
    return info.starts_with("diff") || info.starts_with("patch") || block.starts_with("--- ") ||
           block.starts_with("@@ ");
  };
  // Fenced blocks in order: the first that is a whole file or a diff that applies.
  for (size_t open = answer.find("```"); open != std::string::npos;) {
    const size_t line_end = answer.find('\n', open);
    if (line_end == std::string::npos)
      break;
    const size_t close = answer.find("\n```", line_end);
    if (close == std::string::npos)
      break;
    const std::string info = answer.substr(open + 3, line_end - open - 3);
    const std::string block = answer.substr(line_end + 1, close + 1 - (line_end + 1));
    if (is_diff(block, info)) {
      if (auto patched = apply_unified_diff(base, block))
        return patched;
    } else if (block.find("@kernel") != std::string::npos) {
      return block;
    }
    open = answer.find("```", close + 4);
  }
  // A bare diff, without a fence.
  const size_t hunk = answer.starts_with("--- ") || answer.starts_with("@@ ") ? 0
                      : answer.find("\n--- ") != std::string::npos ? answer.find("\n--- ") + 1
                      : answer.find("\n@@ ") != std::string::npos  ? answer.find("\n@@ ") + 1
                                                                   : std::string::npos;
  if (hunk != std::string::npos)
    return apply_unified_diff(base, answer.substr(hunk));
  return std::nullopt;
}

} // namespace argus::agent
