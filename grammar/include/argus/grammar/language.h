// The tree-sitter language Argus parses with: the Python grammar (npm
// tree-sitter-python 0.23.6, ABI 14), compiled into this library.
#pragma once

#include <tree_sitter/api.h>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace argus::grammar {

// The language, checked once against the runtime's ABI range.
const TSLanguage *language();

} // namespace argus::grammar
