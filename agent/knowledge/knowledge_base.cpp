// The knowledge base's loader and schema: knowledge_base.h.
#include "argus/agent/knowledge_base.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace argus::agent {

namespace {

std::string trim(const std::string &s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos)
    return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> list(const std::string &value) {
  std::vector<std::string> out;
  std::stringstream in(value);
  std::string item;
  while (std::getline(in, item, ','))
    if (!trim(item).empty())
      out.push_back(trim(item));
  return out;
}

bool is_id(const std::string &id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// The fenced code blocks of a section.
std::vector<std::string> code_blocks(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (trim(line).starts_with("```")) {
      if (inside)
        out.push_back(block);
      block.clear();
      inside = !inside;
      continue;
    }
    if (inside)
      block += line + "\n";
  }
  return out;
}

} // namespace

const std::vector<std::string> &knowledge_categories() {
  static const std::vector<std::string> categories = {"memory",     "compute",     "pipelining",
                                                      "scheduling", "parallelism", "epilogue"};
  return categories;
}

const std::vector<std::string> &knowledge_sections() {
  static const std::vector<std::string> sections = {"When it applies", "Expected effect",
                                                    "Steps",           "Pitfalls",
                                                    "Target notes",    "Invariants to add"};
  return sections;
}

Technique parse_technique(const std::string &path, const std::string &text,
                          std::vector<std::string> &errors) {
  Technique t;
  t.path = path;
  const auto error = [&](const std::string &what) { errors.push_back(path + ": " + what); };
  std::stringstream in(text);
  std::string line;
  if (!std::getline(in, line) || trim(line) != "---") {
    error("expected a header between '---' lines at the top");
    return t;
  }
  std::map<std::string, std::string> header;
  bool closed = false;
  while (std::getline(in, line)) {
    if (trim(line) == "---") {
      closed = true;
      break;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      error("header line without 'key: value': " + line);
      continue;
    }
    const std::string key = trim(line.substr(0, colon));
    if (header.count(key))
      error("header key '" + key + "' given twice");
    header[key] = trim(line.substr(colon + 1));
  }
  if (!closed)
    error("the header has no closing '---'");
  static const std::set<std::string> known = {"id",      "title",   "category",
                                              "targets", "signals", "refactor"};
  for (const auto &[key, value] : header)
    if (!known.count(key))
      error("unknown header key '" + key + "'");
  t.id = header["id"];
  t.title = header["title"];
  t.category = header["category"];
  t.targets = list(header["targets"]);
  t.signals = list(header["signals"]);
  t.refactor = header["refactor"];
  if (!is_id(t.id))
    error("id must be lowercase letters, digits and '-': '" + t.id + "'");
  const std::string stem = std::filesystem::path(path).stem().string();
  if (t.id != stem)
    error("id '" + t.id + "' is not the file's name '" + stem + "'");
  if (t.title.empty())
    error("no title");
  const auto &categories = knowledge_categories();
  if (std::find(categories.begin(), categories.end(), t.category) == categories.end())
    error("category '" + t.category +
          "' is none of memory, compute, pipelining, scheduling, "
          "parallelism, epilogue");
  if (t.targets.empty())
    error("no targets");
  for (const std::string &target : t.targets)
    if (target != "sm90" && target != "gfx942")
      error("unknown target '" + target + "' (sm90, gfx942)");
  if (t.signals.empty())
    error("no signals: what points to this technique");
  if (!t.refactor.empty() && !t.refactor.starts_with("refactor.rewrite.argus."))
    error("refactor '" + t.refactor + "' is not a code action kind refactor.rewrite.argus.ID");
  // Sections.
  std::string current;
  std::vector<std::string> order;
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) {
      current = trim(line.substr(3));
      if (t.sections.count(current))
        error("section '" + current + "' twice");
      t.sections[current];
      order.push_back(current);
      continue;
    }
    if (line.starts_with("# "))
      continue; // a title line
    if (!current.empty())
      t.sections[current] += line + "\n";
    else if (!trim(line).empty())
      error("text before the first section: " + line);
  }
  const auto &wanted = knowledge_sections();
  if (order != wanted) {
    std::string want, got;
    for (const auto &s : wanted)
      want += (want.empty() ? "" : ", ") + s;
    for (const auto &s : order)
      got += (got.empty() ? "" : ", ") + s;
    error("sections must be, in order: " + want + " (found: " + got + ")");
  }
  for (const auto &[name, body] : t.sections)
    if (trim(body).size() < 40)
      error("section '" + name + "' says (almost) nothing");
  if (t.sections.count("Target notes")) {
    for (const std::string &target : t.targets)
      if (t.sections["Target notes"].find(target) == std::string::npos)
        error("Target notes say nothing of " + target);
  }
  if (t.sections.count("Invariants to add")) {
    t.invariants = code_blocks(t.sections["Invariants to add"]);
    bool asserts = false;
    for (const std::string &block : t.invariants)
      asserts = asserts || block.find("assert_tag") != std::string::npos ||
                block.find("assert_covered") != std::string::npos;
    if (!asserts)
      error("Invariants to add has no code block with an assert_tag, assert_tag_eq or "
            "assert_covered template");
  }
  return t;
}

KnowledgeBase load_knowledge_base(const std::string &directory) {
  KnowledgeBase kb;
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec)) {
    kb.errors.push_back(directory + ": not a directory");
    return kb;
  }
  for (const auto &entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::filesystem::path &p = entry.path();
    if (p.extension() != ".md" || p.filename() == "README.md")
      continue;
    std::ifstream file(p);
    std::stringstream text;
    text << file.rdbuf();
    kb.techniques.push_back(parse_technique(p.string(), text.str(), kb.errors));
  }
  std::sort(kb.techniques.begin(), kb.techniques.end(),
            [](const Technique &a, const Technique &b) { return a.id < b.id; });
  for (size_t i = 1; i < kb.techniques.size(); ++i)
    if (kb.techniques[i].id == kb.techniques[i - 1].id)
      kb.errors.push_back(kb.techniques[i].path + ": id '" + kb.techniques[i].id + "' twice");
  return kb;
}

const Technique *KnowledgeBase::find(const std::string &id) const {
  for (const Technique &t : techniques)
    if (t.id == id)
      return &t;
  return nullptr;
}

std::vector<const Technique *> KnowledgeBase::for_signal(const std::string &signal) const {
  std::vector<const Technique *> out;
  for (const Technique &t : techniques)
    if (std::find(t.signals.begin(), t.signals.end(), signal) != t.signals.end())
      out.push_back(&t);
  return out;
}

} // namespace argus::agent
