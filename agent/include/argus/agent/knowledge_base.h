// The agent's knowledge base (agent/kb/, issue 14 item 2): one Markdown file
// per optimization technique, for people and for the planner and proposers.
//
// An entry is a header of `key: value` lines between `---` lines, then the
// sections below as `## ` headings, in our own words (agent/kb/README.md is
// the schema, and this loader enforces it):
//
//   id, title, category (memory | compute | pipelining | scheduling |
//   parallelism | epilogue), targets (sm90, gfx942), signals (the diagnostic
//   codes, lints, resource figures or roofline positions that point to it:
//   `W0904`, `registers`, `memory-bound`, ...), refactor (optional: the
//   server's code action kind that applies it, refactor.rewrite.argus.ID).
//   Sections: When it applies, Expected effect, Steps, Pitfalls, Target notes,
//   Invariants to add (tag-assertion templates in a code block that guard the
//   transformation).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace argus::agent {

struct Technique {
  std::string id;
  std::string title;
  std::string category;
  std::vector<std::string> targets;
  std::vector<std::string> signals;
  std::string refactor; // empty when no code action applies it
  std::string path;
  // Section title -> its text (without the heading).
  std::map<std::string, std::string> sections;
  // The code blocks of "Invariants to add".
  std::vector<std::string> invariants;
};

struct KnowledgeBase {
  std::vector<Technique> techniques; // sorted by id
  // "FILE: what is wrong", one per problem; empty when every entry is valid.
  std::vector<std::string> errors;

  const Technique *find(const std::string &id) const;
  // The techniques a signal points to (a diagnostic code, a lint, a figure).
  std::vector<const Technique *> for_signal(const std::string &signal) const;
};

// The categories and section titles an entry must have, in order.
const std::vector<std::string> &knowledge_categories();
const std::vector<std::string> &knowledge_sections();

// Parses one entry; problems go to `errors` (prefixed with `path`).
Technique parse_technique(const std::string &path, const std::string &text,
                          std::vector<std::string> &errors);
// Every `*.md` of `directory` but README.md, validated.
KnowledgeBase load_knowledge_base(const std::string &directory);

} // namespace argus::agent
