// The statically linked argus (ARGUS_STATIC: the GPU host's copy) has no
// HTTP library to link (Debian ships cpp-httplib as a shared library only):
// its model proposer says so. Everything else of the agent works offline.
#include "argus/agent/llm_proposer.h"

namespace argus::agent {

ChatClient::ChatClient(ModelOptions options) : options_(std::move(options)) {
  throw ModelError("this argus is linked statically, without the HTTP client a model endpoint "
                   "needs: use --offline, or a dynamically linked argus");
}

std::string ChatClient::complete(const std::vector<nlohmann::json> &) { return {}; }

} // namespace argus::agent
