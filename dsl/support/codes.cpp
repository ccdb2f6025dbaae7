#include "argus/dsl/codes.h"

#include <array>

namespace argus::codes {

std::span<const CodeInfo> all_codes() {
  static constexpr std::array kCodes = {
      CodeInfo{kEmptyFile, "empty file"},
      CodeInfo{kNotText, "not text"},
      CodeInfo{kFileTooLarge, "file too large"},
      CodeInfo{kNestingTooDeep, "nesting too deep"},
      CodeInfo{kSyntaxError, "syntax error"},
      CodeInfo{kMissingToken, "missing token"},
      CodeInfo{kBadLiteral, "bad literal"},
      CodeInfo{kUnsupportedStatement, "unsupported statement"},
      CodeInfo{kUnsupportedExpression, "unsupported expression"},
      CodeInfo{kUnsupportedTopLevel, "unsupported top level"},
      CodeInfo{kUnsupportedParameter, "unsupported parameter"},
      CodeInfo{kRecursion, "recursion"},
      CodeInfo{kUndefinedName, "undefined name"},
      CodeInfo{kRedefinition, "redefinition"},
      CodeInfo{kAssignToConstant, "assign to constant"},
      CodeInfo{kUnknownAttribute, "unknown attribute"},
      CodeInfo{kTypeMismatch, "type mismatch"},
      CodeInfo{kInvalidOperand, "invalid operand"},
      CodeInfo{kNotIndexable, "not indexable"},
      CodeInfo{kIndexCount, "index count"},
      CodeInfo{kIndexOutOfBounds, "index out of bounds"},
      CodeInfo{kInvalidAnnotation, "invalid annotation"},
      CodeInfo{kInvalidReturn, "invalid return"},
      CodeInfo{kNotAssignable, "not assignable"},
      CodeInfo{kNotConstant, "not constant"},
      CodeInfo{kConstantDivByZero, "constant div by zero"},
      CodeInfo{kShapeMismatch, "shape mismatch"},
      CodeInfo{kInvalidShape, "invalid shape"},
      CodeInfo{kSharedMemoryTooLarge, "shared memory too large"},
      CodeInfo{kUnknownFunction, "unknown function"},
      CodeInfo{kArgumentCount, "argument count"},
      CodeInfo{kArgumentType, "argument type"},
      CodeInfo{kArgumentNotConstant, "argument not constant"},
      CodeInfo{kUnknownKeyword, "unknown keyword"},
      CodeInfo{kNotCallable, "not callable"},
      CodeInfo{kUnknownPolicy, "unknown policy"},
      CodeInfo{kInvalidGeometry, "invalid geometry"},
      CodeInfo{kInvalidAssume, "invalid assume"},
      CodeInfo{kInvalidBench, "invalid bench"},
      CodeInfo{kMixedTargets, "mixed targets"},
      CodeInfo{kTooManyParameters, "too many parameters"},
      CodeInfo{kUnknownDecorator, "unknown decorator"},
      CodeInfo{kMisplacedStatement, "misplaced statement"},
      CodeInfo{kUnusedVariable, "unused variable"},
      CodeInfo{kWhileLoop, "while loop"},
  };
  return kCodes;
}

} // namespace argus::codes
