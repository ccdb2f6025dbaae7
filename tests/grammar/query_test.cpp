// The Argus queries (grammar/queries/*.scm): they compile on the 0.20.7 runtime, the client-side
// predicates are evaluated, and they capture what the editors rely on in a sample kernel.
#include "argus/grammar/language.h"
#include "argus/grammar/query.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using argus::grammar::Query;
using argus::grammar::QueryCapture;
using argus::grammar::QueryError;
using argus::grammar::QueryKind;
using Names = std::vector<std::string>;

// A parsed source that outlives the captures taken from it.
class Parsed {
public:
  explicit Parsed(std::string source) : source_(std::move(source)) {
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, argus::grammar::language());
    tree_ = ts_parser_parse_string(parser, nullptr, source_.data(),
                                   static_cast<uint32_t>(source_.size()));
    ts_parser_delete(parser);
  }
  ~Parsed() { ts_tree_delete(tree_); }
  Parsed(const Parsed &) = delete;
  Parsed &operator=(const Parsed &) = delete;

  TSNode root() const { return ts_tree_root_node(tree_); }
  const std::string &source() const { return source_; }
  std::string text(TSNode node) const {
    return std::string(argus::grammar::node_text(node, source_));
  }

  // The byte offset of the `occurrence`-th whole-word occurrence of `word`.
  size_t find(std::string_view word, int occurrence = 0) const {
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    size_t pos = 0;
    int seen = 0;
    while ((pos = source_.find(word, pos)) != std::string::npos) {
      const bool starts = pos == 0 || !is_word(source_[pos - 1]) || !is_word(word.front());
      const size_t end = pos + word.size();
      const bool ends = end == source_.size() || !is_word(source_[end]) || !is_word(word.back());
      if (starts && ends && seen++ == occurrence) {
        return pos;
      }
      ++pos;
    }
    ADD_FAILURE() << "`" << word << "` #" << occurrence << " not in the sample";
    return std::string::npos;
  }

private:
  std::string source_;
  TSTree *tree_ = nullptr;
};

Query load(QueryKind kind) {
  QueryError error;
  std::optional<Query> query = Query::load(kind, &error);
  if (!query) {
    ADD_FAILURE() << error.message << " (offset " << error.offset << ", "
                  << argus::grammar::query_error_name(error.type) << ")";
    std::abort();
  }
  return std::move(*query);
}

Query compile(const std::string &source) {
  QueryError error;
  std::optional<Query> query = Query::compile(source, "test.scm", &error);
  if (!query) {
    ADD_FAILURE() << error.message;
    std::abort();
  }
  return std::move(*query);
}

// The capture names on the node spanning exactly the `occurrence`-th `word`, in pattern order
// (the last one is what an editor applying "later patterns win" shows).
Names names_at(const Query &query, const Parsed &parsed, std::string_view word,
               int occurrence = 0) {
  const size_t start = parsed.find(word, occurrence);
  Names names;
  for (const QueryCapture &capture : query.captures(parsed.root(), parsed.source())) {
    if (ts_node_start_byte(capture.node) == start &&
        ts_node_end_byte(capture.node) == start + word.size()) {
      names.emplace_back(capture.name);
    }
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Compiling

TEST(Queries, EveryQueryCompiles) {
  for (QueryKind kind : {QueryKind::kHighlights, QueryKind::kLocals, QueryKind::kFolds}) {
    QueryError error;
    const std::optional<Query> query = Query::load(kind, &error);
    ASSERT_TRUE(query.has_value())
        << error.message << " (byte offset " << error.offset << ", error type "
        << argus::grammar::query_error_name(error.type) << ")";
    EXPECT_GT(query->pattern_count(), 0u) << argus::grammar::query_file_name(kind);
  }
}

TEST(Queries, HighlightCaptureNamesAreTheDocumentedOnes) {
  const Query query = load(QueryKind::kHighlights);
  std::set<std::string> names;
  for (uint32_t i = 0; i < query.capture_count(); ++i) {
    names.emplace(query.capture_name(i));
  }
  const std::set<std::string> documented = {"variable",
                                            "constant",
                                            "variable.member",
                                            "function.call",
                                            "function.method.call",
                                            "function",
                                            "variable.parameter",
                                            "comment",
                                            "string",
                                            "string.escape",
                                            "string.documentation",
                                            "number",
                                            "number.float",
                                            "boolean",
                                            "constant.builtin",
                                            "operator",
                                            "keyword.operator",
                                            "punctuation.bracket",
                                            "punctuation.delimiter",
                                            "keyword",
                                            "type",
                                            "type.builtin",
                                            "type.qualifier",
                                            "function.builtin",
                                            "function.builtin.memory",
                                            "function.macro",
                                            "module.builtin",
                                            "attribute",
                                            "attribute.builtin"};
  EXPECT_EQ(names, documented);
}

TEST(Queries, RuntimeErrorsReportOffsetAndType) {
  QueryError error;
  EXPECT_FALSE(Query::compile("(identifier) @x\n(not_a_node) @y", "bad.scm", &error));
  EXPECT_EQ(error.type, TSQueryErrorNodeType);
  EXPECT_EQ(error.offset, 17u);
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 2u);
  EXPECT_EQ(error.message, "bad.scm:2:2: query error (node type) at `not_a_node`");

  EXPECT_FALSE(Query::compile("(call nonexistent: (identifier))", "bad.scm", &error));
  EXPECT_EQ(error.type, TSQueryErrorField);
  EXPECT_EQ(error.offset, 6u);

  EXPECT_FALSE(Query::compile("(call", "bad.scm", &error));
  EXPECT_EQ(error.type, TSQueryErrorSyntax);
}

TEST(Queries, UnsupportedOrMalformedPredicatesAreRejected) {
  QueryError error;
  EXPECT_FALSE(Query::compile("\n((identifier) @x (#lua-match? @x \"^a\"))", "bad.scm", &error));
  EXPECT_EQ(error.type, TSQueryErrorNone);
  EXPECT_EQ(error.line, 2u);
  EXPECT_NE(error.message.find("unsupported predicate #lua-match?"), std::string::npos)
      << error.message;

  EXPECT_FALSE(Query::compile("((identifier) @x (#match? @x \"(\"))", "bad.scm", &error));
  EXPECT_NE(error.message.find("invalid regex"), std::string::npos) << error.message;

  EXPECT_FALSE(Query::compile("((identifier) @x (#eq? @x))", "bad.scm", &error));
  EXPECT_NE(error.message.find("needs a capture"), std::string::npos) << error.message;

  EXPECT_FALSE(Query::compile("((identifier) @x (#eq? @x \"a\" \"b\"))", "bad.scm", &error));
  EXPECT_NE(error.message.find("exactly one string"), std::string::npos) << error.message;
}

// ---------------------------------------------------------------------------------------------
// Predicates, evaluated by the client

Names texts(const Query &query, const Parsed &parsed) {
  Names out;
  for (const QueryCapture &capture : query.captures(parsed.root(), parsed.source())) {
    out.push_back(std::string(capture.name) + "=" + parsed.text(capture.node));
  }
  return out;
}

TEST(Predicates, EqMatchAnyOfAndTheirNegations) {
  const Parsed parsed("alpha = beta\nBETA = alpha\ngamma = gamma\n");
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#eq? @x "alpha")))"), parsed),
            (Names{"x=alpha", "x=alpha"}));
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#not-eq? @x "alpha")))"), parsed),
            (Names{"x=beta", "x=BETA", "x=gamma", "x=gamma"}));
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#match? @x "^[A-Z]+$")))"), parsed),
            (Names{"x=BETA"}));
  // #match? searches: an unanchored regex matches inside the text.
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#match? @x "mm")))"), parsed),
            (Names{"x=gamma", "x=gamma"}));
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#not-match? @x "a")))"), parsed), (Names{"x=BETA"}));
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#any-of? @x "beta" "BETA")))"), parsed),
            (Names{"x=beta", "x=BETA"}));
  EXPECT_EQ(texts(compile(R"(((identifier) @x (#not-any-of? @x "alpha" "gamma")))"), parsed),
            (Names{"x=beta", "x=BETA"}));
  // Capture against capture: only `gamma = gamma`.
  EXPECT_EQ(texts(compile("(assignment left: (identifier) @l right: (identifier) @r (#eq? @l @r))"),
                  parsed),
            (Names{"l=gamma", "r=gamma"}));
}

TEST(Predicates, SetRecordsPropertiesWithoutFiltering) {
  const Parsed parsed("def f():\n    pass\n");
  const Query query =
      compile(R"((function_definition name: (identifier) @n (#set! scope "parent")))");
  const std::vector<argus::grammar::QueryMatch> matches =
      query.matches(parsed.root(), parsed.source());
  ASSERT_EQ(matches.size(), 1u);
  ASSERT_EQ(matches[0].properties.size(), 1u);
  EXPECT_EQ(matches[0].properties[0].first, "scope");
  EXPECT_EQ(matches[0].properties[0].second, "parent");
}

// ---------------------------------------------------------------------------------------------
// Highlights on a sample kernel

const char *const kSample = R"py("""Tiled GEMM."""
BM = 64
BK: constexpr = 32


@device
def helper(x: f32) -> f32:
    return exp2(x) * tagged


@bench(M=4096, N=4096, K=4096, reference="matmul", flops=2 * M * N * K)
@kernel(grid=(cdiv(N, BM), cdiv(M, BM)), block=256)
def gemm(A: Tensor((M, K), bf16), C: Tensor((M, N), f32), M: i32, STAGES: constexpr = 2):
    # stage the A tile through shared memory
    sA = make_shared((BM, BK), bf16, layout=compose(Swizzle(3, 3, 3), make_layout((BM, BK), (BK, 1))))
    tag(A, lambda r, c: {"m": r, "k": c})
    acc = make_local((4,), f32)
    for k in range(0, M, BK, unroll=2):
        a, b = sA[thread_id(), k], helper(1.5)
        acc = nvvm.mma_m16n8k16_bf16_f32(a, b, acc)
        assert_tag(acc, {"m": M, "k": k})
    C[0, 0] = f32(acc[0]) if M > 0 else inf


@kernel(grid=1, block=64)
def mi300(X: Tensor((64,), f32)):
    amdgpu.s_waitcnt(vmcnt=0, lgkmcnt=0)
)py";

class Highlights : public ::testing::Test {
protected:
  Parsed parsed{kSample};
  Query query = load(QueryKind::kHighlights);
  Names at(std::string_view word, int occurrence = 0) {
    return names_at(query, parsed, word, occurrence);
  }
};

TEST_F(Highlights, SampleParsesWithoutErrors) { EXPECT_FALSE(ts_node_has_error(parsed.root())); }

TEST_F(Highlights, IntrinsicNamespaceAndFunction) {
  EXPECT_EQ(at("nvvm"), (Names{"variable", "module.builtin"}));
  EXPECT_EQ(at("mma_m16n8k16_bf16_f32"),
            (Names{"variable", "variable.member", "function.method.call", "function.builtin"}));
  EXPECT_EQ(at("amdgpu"), (Names{"variable", "module.builtin"}));
  EXPECT_EQ(at("s_waitcnt"),
            (Names{"variable", "variable.member", "function.method.call", "function.builtin"}));
  // Keyword arguments of an intrinsic are parameters.
  EXPECT_EQ(at("vmcnt"), (Names{"variable", "variable.parameter"}));
}

TEST_F(Highlights, Dtypes) {
  EXPECT_EQ(at("bf16"), (Names{"variable", "type.builtin"}));
  // In an annotation the dtype is also a @type.
  EXPECT_EQ(at("i32"), (Names{"variable", "type", "type.builtin"}));
  // A cast `f32(x)` reads as the dtype, not as a call.
  EXPECT_EQ(at("f32", 4), (Names{"variable", "function.call", "type.builtin"}));
}

TEST_F(Highlights, ConstexprIsATypeQualifier) {
  EXPECT_EQ(at("constexpr"), (Names{"variable", "type", "type.qualifier"}));
  EXPECT_EQ(at("constexpr", 1), (Names{"variable", "type", "type.qualifier"}));
}

TEST_F(Highlights, TagFunctions) {
  EXPECT_EQ(at("tag"), (Names{"variable", "function.call", "function.macro"}));
  EXPECT_EQ(at("assert_tag"), (Names{"variable", "function.call", "function.macro"}));
  // Not a tag function: `#any-of?` compares whole names.
  EXPECT_EQ(at("tagged"), (Names{"variable"}));
}

TEST_F(Highlights, MemorySpaceBuiltins) {
  EXPECT_EQ(at("make_shared"),
            (Names{"variable", "function.call", "function.builtin", "function.builtin.memory"}));
  EXPECT_EQ(at("make_local"),
            (Names{"variable", "function.call", "function.builtin", "function.builtin.memory"}));
  // Other builtins are not memory spaces.
  EXPECT_EQ(at("make_layout"), (Names{"variable", "function.call", "function.builtin"}));
  EXPECT_EQ(at("Swizzle"), (Names{"variable", "function.call", "function.builtin"}));
  EXPECT_EQ(at("thread_id"), (Names{"variable", "function.call", "function.builtin"}));
  EXPECT_EQ(at("range"), (Names{"variable", "function.call", "function.builtin"}));
  EXPECT_EQ(at("Tensor"), (Names{"variable", "function.call", "function.builtin"}));
  // A user's device function is a plain call.
  EXPECT_EQ(at("helper", 1), (Names{"variable", "function.call"}));
}

TEST_F(Highlights, Decorators) {
  EXPECT_EQ(at("kernel"), (Names{"variable", "function.call", "attribute", "attribute.builtin"}));
  EXPECT_EQ(at("bench"), (Names{"variable", "function.call", "attribute", "attribute.builtin"}));
  EXPECT_EQ(at("device"), (Names{"variable", "attribute", "attribute.builtin"}));
  EXPECT_EQ(at("@"), (Names{"operator", "attribute"}));
}

TEST_F(Highlights, DefinitionsParametersAndConstants) {
  EXPECT_EQ(at("gemm"), (Names{"variable", "function"}));
  EXPECT_EQ(at("BM"), (Names{"variable", "constant"}));
  EXPECT_EQ(at("STAGES"), (Names{"variable", "constant", "variable.parameter"}));
  EXPECT_EQ(at("x"), (Names{"variable", "variable.parameter"}));
  // Lambda parameters of a tag function.
  EXPECT_EQ(at("r"), (Names{"variable", "variable.parameter"}));
  // Keyword arguments of a call (`unroll=`) and of a decorator (`block=`).
  EXPECT_EQ(at("unroll"), (Names{"variable", "variable.parameter"}));
  EXPECT_EQ(at("block"), (Names{"variable", "variable.parameter"}));
  EXPECT_EQ(at("inf"), (Names{"variable", "constant.builtin"}));
}

TEST_F(Highlights, LiteralsCommentsKeywordsOperators) {
  EXPECT_EQ(at("# stage the A tile through shared memory"), (Names{"comment"}));
  EXPECT_EQ(at("\"\"\"Tiled GEMM.\"\"\""), (Names{"string", "string.documentation"}));
  EXPECT_EQ(at("\"matmul\""), (Names{"string"}));
  EXPECT_EQ(at("4096"), (Names{"number"}));
  EXPECT_EQ(at("1.5"), (Names{"number.float"}));
  EXPECT_EQ(at("def"), (Names{"keyword"}));
  EXPECT_EQ(at("return"), (Names{"keyword"}));
  EXPECT_EQ(at("lambda"), (Names{"keyword"}));
  EXPECT_EQ(at("if"), (Names{"keyword"}));
  // `in` of a for loop is a keyword that overrides the operator.
  EXPECT_EQ(at("in"), (Names{"keyword.operator", "keyword"}));
  EXPECT_EQ(at("->"), (Names{"operator"}));
  EXPECT_EQ(at("*", 1), (Names{"operator"}));
}

// ---------------------------------------------------------------------------------------------
// Locals: scopes, definitions, references, and a resolver on top of them as an editor would run

struct Locals {
  struct Definition {
    TSNode node;
    std::string kind; // "parameter", "var", "function"
    TSNode scope;     // the scope it belongs to
  };
  std::vector<TSNode> scopes;
  std::vector<Definition> definitions;
  std::vector<TSNode> references;
};

bool contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) &&
         ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

bool same(TSNode a, TSNode b) { return ts_node_eq(a, b); }

// The innermost scope that contains `node`, skipping `except` itself.
std::optional<TSNode> innermost_scope(const std::vector<TSNode> &scopes, TSNode node,
                                      std::optional<TSNode> except = std::nullopt) {
  std::optional<TSNode> best;
  for (TSNode scope : scopes) {
    if (except && same(scope, *except)) {
      continue;
    }
    if (contains(scope, node) &&
        (!best || ts_node_end_byte(scope) - ts_node_start_byte(scope) <
                      ts_node_end_byte(*best) - ts_node_start_byte(*best))) {
      best = scope;
    }
  }
  return best;
}

Locals collect_locals(const Query &query, const Parsed &parsed) {
  Locals locals;
  struct Pending {
    TSNode node;
    std::string kind;
    bool parent;
  };
  std::vector<Pending> pending;
  for (const argus::grammar::QueryMatch &match : query.matches(parsed.root(), parsed.source())) {
    for (const QueryCapture &capture : match.captures) {
      const std::string name(capture.name);
      if (name == "local.scope") {
        locals.scopes.push_back(capture.node);
      } else if (name == "local.reference") {
        locals.references.push_back(capture.node);
      } else if (name.starts_with("local.definition.")) {
        const std::string kind = name.substr(std::string("local.definition.").size());
        bool parent = false;
        for (const auto &[key, value] : match.properties) {
          parent = parent || (key == "definition." + kind + ".scope" && value == "parent");
        }
        pending.push_back({capture.node, kind, parent});
      } else {
        ADD_FAILURE() << "unexpected locals capture @" << name;
      }
    }
  }
  for (const Pending &p : pending) {
    std::optional<TSNode> scope = innermost_scope(locals.scopes, p.node);
    if (scope && p.parent) {
      scope = innermost_scope(locals.scopes, *scope, scope);
    }
    EXPECT_TRUE(scope.has_value()) << parsed.text(p.node);
    locals.definitions.push_back({p.node, p.kind, scope.value_or(parsed.root())});
  }
  return locals;
}

// The definition a reference resolves to: the innermost enclosing scope that defines the name.
const Locals::Definition *resolve(const Locals &locals, const Parsed &parsed, TSNode reference) {
  std::optional<TSNode> scope = innermost_scope(locals.scopes, reference);
  while (scope) {
    for (const Locals::Definition &definition : locals.definitions) {
      if (same(definition.scope, *scope) &&
          parsed.text(definition.node) == parsed.text(reference)) {
        return &definition;
      }
    }
    scope = innermost_scope(locals.scopes, *scope, scope);
  }
  return nullptr;
}

class LocalsTest : public ::testing::Test {
protected:
  Parsed parsed{kSample};
  Query query = load(QueryKind::kLocals);
  Locals locals = collect_locals(query, parsed);

  TSNode node_at(std::string_view word, int occurrence = 0) {
    const auto start = static_cast<uint32_t>(parsed.find(word, occurrence));
    return ts_node_named_descendant_for_byte_range(parsed.root(), start,
                                                   start + static_cast<uint32_t>(word.size()));
  }
  bool is_reference(TSNode node) {
    return std::any_of(locals.references.begin(), locals.references.end(),
                       [&](TSNode r) { return same(r, node); });
  }
  // (kind, line) of what the `occurrence`-th `word` resolves to; ("", 0) when nothing.
  std::pair<std::string, uint32_t> resolved(std::string_view word, int occurrence) {
    const TSNode node = node_at(word, occurrence);
    EXPECT_TRUE(is_reference(node)) << word << " #" << occurrence;
    const Locals::Definition *definition = resolve(locals, parsed, node);
    if (definition == nullptr) {
      return {"", 0};
    }
    return {definition->kind, ts_node_start_point(definition->node).row + 1};
  }
};

TEST_F(LocalsTest, Scopes) {
  std::vector<std::string> kinds;
  for (TSNode scope : locals.scopes) {
    kinds.emplace_back(ts_node_type(scope));
  }
  EXPECT_EQ(kinds, (Names{"module", "function_definition", "function_definition", "lambda",
                          "function_definition"}));
}

TEST_F(LocalsTest, Definitions) {
  std::vector<std::string> got;
  for (const Locals::Definition &definition : locals.definitions) {
    got.push_back(definition.kind + ":" + parsed.text(definition.node) + "@" +
                  ts_node_type(definition.scope));
  }
  EXPECT_EQ(got, (Names{"var:BM@module", "var:BK@module", "function:helper@module",
                        "parameter:x@function_definition", "function:gemm@module",
                        "parameter:A@function_definition", "parameter:C@function_definition",
                        "parameter:M@function_definition", "parameter:STAGES@function_definition",
                        "var:sA@function_definition", "parameter:r@lambda", "parameter:c@lambda",
                        "var:acc@function_definition", "var:k@function_definition",
                        "var:a@function_definition", "var:b@function_definition",
                        "var:acc@function_definition", "function:mi300@module",
                        "parameter:X@function_definition"}));
}

TEST_F(LocalsTest, ParameterDefinitionAndItsReference) {
  // `M: i32` (line 13) is the parameter; `range(0, M, ...)` and `if M > 0` use it.
  const TSNode definition = node_at("M", 5);
  EXPECT_EQ(ts_node_start_point(definition).row + 1, 13u);
  EXPECT_TRUE(std::any_of(locals.definitions.begin(), locals.definitions.end(),
                          [&](const Locals::Definition &d) {
                            return same(d.node, definition) && d.kind == "parameter";
                          }));
  EXPECT_EQ(resolved("M", 6), (std::pair<std::string, uint32_t>{"parameter", 13}));
  EXPECT_EQ(resolved("M", 8), (std::pair<std::string, uint32_t>{"parameter", 13}));
}

TEST_F(LocalsTest, ReferencesResolveThroughScopes) {
  // Lambda parameters shadow nothing outside: `r` in the lambda body is the lambda's.
  EXPECT_EQ(resolved("r", 1), (std::pair<std::string, uint32_t>{"parameter", 16}));
  // A module constant used in a kernel.
  EXPECT_EQ(resolved("BK", 1), (std::pair<std::string, uint32_t>{"var", 3}));
  // A device function called from a kernel: its name lives in the module scope.
  EXPECT_EQ(resolved("helper", 1), (std::pair<std::string, uint32_t>{"function", 7}));
  // A for target.
  EXPECT_EQ(resolved("k", 4), (std::pair<std::string, uint32_t>{"var", 18}));
  // `x` of helper is not visible in gemm; an unknown name resolves to nothing.
  EXPECT_EQ(resolved("tagged", 0), (std::pair<std::string, uint32_t>{"", 0}));
}

// ---------------------------------------------------------------------------------------------
// Folds

TEST(Folds, FunctionBodiesBlocksAndMultiLineBrackets) {
  const Parsed parsed(R"py(@kernel(grid=(4,), block=128)
def k(X: Tensor((N,), f32)):
    x = make_shared(
        (128,),
        f32,
    )
    for i in range(4):
        if i > 0:
            x[i] = 1.0
        else:
            x[i] = 2.0
    assert_tag(x, {
        "m": i,
    })
)py");
  const Query query = load(QueryKind::kFolds);
  std::vector<std::tuple<std::string, uint32_t, uint32_t>> folds;
  for (const QueryCapture &capture : query.captures(parsed.root(), parsed.source())) {
    EXPECT_EQ(capture.name, "fold");
    const uint32_t first = ts_node_start_point(capture.node).row;
    const uint32_t last = ts_node_end_point(capture.node).row;
    if (last > first) { // editors fold only nodes that span lines
      folds.emplace_back(ts_node_type(capture.node), first, last);
    }
  }
  using F = std::tuple<std::string, uint32_t, uint32_t>;
  EXPECT_EQ(folds, (std::vector<F>{F{"function_definition", 1, 13}, F{"argument_list", 2, 5},
                                   F{"for_statement", 6, 10}, F{"if_statement", 7, 10},
                                   F{"else_clause", 9, 10}, F{"argument_list", 11, 13},
                                   F{"dictionary", 11, 13}}));
}

} // namespace
