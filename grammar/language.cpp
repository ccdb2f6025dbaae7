#include "argus/grammar/language.h"

#include <cstdio>
#include <cstdlib>

namespace argus::grammar {

const TSLanguage *language() {
  static const TSLanguage *checked = [] {
    const TSLanguage *lang = tree_sitter_python();
    const uint32_t version = ts_language_version(lang);
    if (version < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION ||
        version > TREE_SITTER_LANGUAGE_VERSION) {
      // A build-configuration error, not an input error: fail loudly at once.
      std::fprintf(stderr, "argus: grammar ABI %u is not supported by this tree-sitter runtime\n",
                   version);
      std::abort();
    }
    return lang;
  }();
  return checked;
}

} // namespace argus::grammar
