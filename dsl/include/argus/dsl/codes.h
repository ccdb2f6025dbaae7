// The stable diagnostic codes of the front end. Every code here is listed
// with an example in docs/diagnostics.md and has a fixture under
// tests/fixtures/ (a test checks both). Codes are never reused or renumbered.
#pragma once

#include <span>
#include <string_view>

namespace argus::codes {

struct CodeInfo {
  std::string_view code;
  std::string_view title; // short, for docs and `argus check --list-codes`
};

// E00xx: input
inline constexpr std::string_view kEmptyFile = "E0001";    // no kernel in the file
inline constexpr std::string_view kNotText = "E0002";      // binary data / invalid UTF-8
inline constexpr std::string_view kFileTooLarge = "E0003"; // over ParseOptions::max_file_bytes
inline constexpr std::string_view kNestingTooDeep =
    "E0004"; // over LowerOptions::max_expression_depth
// E01xx: syntax
inline constexpr std::string_view kSyntaxError = "E0101";  // tree-sitter ERROR node
inline constexpr std::string_view kMissingToken = "E0102"; // tree-sitter MISSING node
inline constexpr std::string_view kBadLiteral = "E0103"; // integer literal out of range, bad escape
// E02xx: outside the Argus subset
inline constexpr std::string_view kUnsupportedStatement = "E0201";
inline constexpr std::string_view kUnsupportedExpression = "E0202";
inline constexpr std::string_view kUnsupportedTopLevel = "E0203";
inline constexpr std::string_view kUnsupportedParameter = "E0204";
inline constexpr std::string_view kRecursion = "E0205";
// E03xx: names
inline constexpr std::string_view kUndefinedName = "E0301";
inline constexpr std::string_view kRedefinition = "E0302";
inline constexpr std::string_view kAssignToConstant = "E0303";
inline constexpr std::string_view kUnknownAttribute = "E0304";
// E04xx: types
inline constexpr std::string_view kTypeMismatch = "E0401";
inline constexpr std::string_view kInvalidOperand = "E0402";
inline constexpr std::string_view kNotIndexable = "E0403";
inline constexpr std::string_view kIndexCount = "E0404";
inline constexpr std::string_view kIndexOutOfBounds = "E0405";
inline constexpr std::string_view kInvalidAnnotation = "E0406";
inline constexpr std::string_view kInvalidReturn = "E0407";
inline constexpr std::string_view kNotAssignable = "E0408";
// E05xx: constants and shapes
inline constexpr std::string_view kNotConstant = "E0501";
inline constexpr std::string_view kConstantDivByZero = "E0502";
inline constexpr std::string_view kShapeMismatch = "E0503";
inline constexpr std::string_view kInvalidShape = "E0504";
inline constexpr std::string_view kSharedMemoryTooLarge = "E0505";
// E06xx: calls of builtins, intrinsics and device functions
inline constexpr std::string_view kUnknownFunction = "E0601";
inline constexpr std::string_view kArgumentCount = "E0602";
inline constexpr std::string_view kArgumentType = "E0603";
inline constexpr std::string_view kArgumentNotConstant = "E0604";
inline constexpr std::string_view kUnknownKeyword = "E0605";
inline constexpr std::string_view kNotCallable = "E0606";
// E07xx: kernels, decorators, policies, assume, bench
inline constexpr std::string_view kUnknownPolicy = "E0701";
inline constexpr std::string_view kInvalidGeometry = "E0702";
inline constexpr std::string_view kInvalidAssume = "E0703";
inline constexpr std::string_view kInvalidBench = "E0704";
inline constexpr std::string_view kMixedTargets = "E0705";
inline constexpr std::string_view kTooManyParameters = "E0706";
inline constexpr std::string_view kUnknownDecorator = "E0707";
inline constexpr std::string_view kMisplacedStatement = "E0708"; // assume/tag outside a kernel
// E09xx: data-flow invariants (the checker, dsl/check; docs/checker.md)
inline constexpr std::string_view kTagMismatch = "E0901";
inline constexpr std::string_view kDataRace = "E0902";
inline constexpr std::string_view kOutOfBounds = "E0903";
inline constexpr std::string_view kUninitializedRead = "E0904";
inline constexpr std::string_view kBarrierDivergence = "E0905";
inline constexpr std::string_view kAsyncReadBeforeWait = "E0906";
inline constexpr std::string_view kNotCovered = "E0907";
inline constexpr std::string_view kCoveredTwice = "E0908";
inline constexpr std::string_view kOperandLayout = "E0909";
// W09xx: what the checker could not prove, and performance lints
inline constexpr std::string_view kUnproven = "W0901";
inline constexpr std::string_view kBankConflict = "W0902";
inline constexpr std::string_view kUncoalesced = "W0903";
inline constexpr std::string_view kUnvectorized = "W0904";
inline constexpr std::string_view kFragmentReload = "W0905";
// Warnings
inline constexpr std::string_view kUnusedVariable = "W0301";
inline constexpr std::string_view kWhileLoop = "W0201";

// All codes, in order, with their titles.
std::span<const CodeInfo> all_codes();

} // namespace argus::codes
