// The knowledge base (agent/kb/): every entry loads and passes the schema
// (knowledge_base.h); it covers the categories and the topics issue 14 names;
// every performance lint points to a technique; and the refactors the
// language server offers as code actions are techniques of the same id.
#include "argus/agent/knowledge_base.h"
#include "argus/agent/lsp_client.h"

#include <gtest/gtest.h>

#include <set>

namespace argus::agent {
namespace {

const std::string kDir = std::string(ARGUS_SOURCE_DIR) + "/agent/kb";

TEST(KnowledgeBaseTest, EveryEntryLoadsAndFollowsTheSchema) {
  const KnowledgeBase kb = load_knowledge_base(kDir);
  for (const std::string &e : kb.errors)
    ADD_FAILURE() << e;
  EXPECT_GE(kb.techniques.size(), 24u);
  std::set<std::string> categories;
  for (const Technique &t : kb.techniques) {
    categories.insert(t.category);
    EXPECT_FALSE(t.invariants.empty()) << t.id;
  }
  for (const std::string &c : knowledge_categories())
    EXPECT_TRUE(categories.count(c)) << "no technique of category " << c;
}

TEST(KnowledgeBaseTest, CoversTheTopicsOfTheIssue) {
  const KnowledgeBase kb = load_knowledge_base(kDir);
  for (const char *id : {"vectorize-copy",
                         "coalesce-global",
                         "stage-to-shared",
                         "pad-shared",
                         "swizzle-shared",
                         "async-copy",
                         "buffer-load-to-lds",
                         "tma-load",
                         "matrix-instructions",
                         "operand-reuse",
                         "fragment-layouts",
                         "wgmma",
                         "double-buffer",
                         "multi-stage-pipeline",
                         "warp-specialization",
                         "unroll",
                         "sched-group-barrier",
                         "s-setprio",
                         "interleave-load-compute",
                         "tile-sizes",
                         "split-k",
                         "persistent-kernel",
                         "l2-tile-order",
                         "epilogue-fusion",
                         "vectorized-stores"})
    EXPECT_NE(kb.find(id), nullptr) << id;
  // Each performance lint points the planner somewhere.
  for (const char *lint : {"W0902", "W0903", "W0904", "W0905"})
    EXPECT_FALSE(kb.for_signal(lint).empty()) << lint;
  // Target-specific techniques say so.
  EXPECT_EQ(kb.find("wgmma")->targets, std::vector<std::string>{"sm90"});
  EXPECT_EQ(kb.find("s-setprio")->targets, std::vector<std::string>{"gfx942"});
}

// The schema's checks, on entries that break them.
TEST(KnowledgeBaseTest, TheLoaderReportsWhatIsWrong) {
  std::vector<std::string> errors;
  parse_technique("kb/bad-one.md", "no header\n", errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("header"), std::string::npos);
  errors.clear();
  const std::string entry = "---\nid: other\ntitle: T\ncategory: magic\ntargets: sm80\n"
                            "signals: W0904\nrefactor: quickfix.x\ncolour: blue\n---\n"
                            "## When it applies\nshort\n## Steps\nshort\n";
  parse_technique("kb/bad-one.md", entry, errors);
  std::string all;
  for (const std::string &e : errors)
    all += e + "\n";
  for (const char *want : {"is not the file's name", "category 'magic'", "unknown target 'sm80'",
                           "refactor 'quickfix.x'", "unknown header key 'colour'",
                           "sections must be, in order", "says (almost) nothing"})
    EXPECT_NE(all.find(want), std::string::npos) << want << " in\n" << all;
  errors.clear();
  const std::string no_invariant =
      "---\nid: fine\ntitle: T\ncategory: memory\ntargets: sm90\nsignals: W0904\n---\n"
      "## When it applies\nlong enough text that says when, where and why it applies.\n"
      "## Expected effect\nlong enough text that says what it gains and by how much.\n"
      "## Steps\nlong enough text that says what to do, step by step, in order.\n"
      "## Pitfalls\nlong enough text that says what goes wrong and how to see it.\n"
      "## Target notes\nsm90: long enough text that says what differs on Hopper.\n"
      "## Invariants to add\nno code block here, only words about what to assert.\n";
  parse_technique("kb/fine.md", no_invariant, errors);
  ASSERT_EQ(errors.size(), 1u) << errors[0];
  EXPECT_NE(errors[0].find("no code block with an assert_tag"), std::string::npos);
}

// The editor's refactor code actions and the knowledge base name the same
// techniques: each kind the server advertises is an entry's `refactor`, and
// each entry's `refactor` is advertised.
TEST(KnowledgeBaseTest, RefactorsAndTechniquesNameTheSameThings) {
  const KnowledgeBase kb = load_knowledge_base(kDir);
  LspClientOptions o;
  o.program = ARGUS_BINARY;
  LspClient client(o);
  client.start();
  const nlohmann::json kinds = client.server_capabilities()["codeActionProvider"].value(
      "codeActionKinds", nlohmann::json::array());
  std::set<std::string> advertised;
  for (const auto &k : kinds)
    if (k.get<std::string>().starts_with("refactor.rewrite.argus."))
      advertised.insert(k.get<std::string>());
  ASSERT_FALSE(advertised.empty()) << kinds.dump();
  std::set<std::string> named;
  for (const Technique &t : kb.techniques)
    if (!t.refactor.empty()) {
      named.insert(t.refactor);
      EXPECT_EQ(t.refactor, "refactor.rewrite.argus." + t.id) << t.id;
    }
  EXPECT_EQ(named, advertised);
}

} // namespace
} // namespace argus::agent
