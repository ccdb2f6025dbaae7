// What the model is told and how its answer is read (llm_proposer.h); no
// HTTP here, so the static argus has it too.
#include "argus/agent/llm_proposer.h"

namespace argus::agent {

using nlohmann::json;

std::vector<json> proposal_messages(const ProposalContext &c) {
  std::string system =
      "You optimize GPU kernels written in Argus, a Python-like language whose data movement is "
      "checked by tags and assertions. Answer with the whole new file in one fenced code block "
      "and nothing else of substance. Keep every assert_tag, assert_tag_eq and assert_covered, "
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

std::optional<std::string> file_from_answer(const std::string &answer) {
  const size_t open = answer.find("```");
  if (open == std::string::npos)
    return std::nullopt;
  const size_t line_end = answer.find('\n', open);
  if (line_end == std::string::npos)
    return std::nullopt;
  const size_t close = answer.find("\n```", line_end);
  if (close == std::string::npos)
    return std::nullopt;
  std::string file = answer.substr(line_end + 1, close + 1 - (line_end + 1));
  if (file.find("@kernel") == std::string::npos)
    return std::nullopt;
  return file;
}

} // namespace argus::agent
