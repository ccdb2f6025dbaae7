// Small text helpers the agent's parts share.
#pragma once

#include <string>
#include <vector>

namespace argus::agent {

// The lines of `text` without their newlines (a last line without one counts).
std::vector<std::string> lines_of(const std::string &text);

} // namespace argus::agent
