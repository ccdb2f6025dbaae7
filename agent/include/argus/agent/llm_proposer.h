// The model proposer (issue 14, item 4a): an OpenAI-compatible
// chat-completions endpoint asked for a new version of the kernel.
//
// The prompt holds the kernel, the chosen technique's knowledge-base entry,
// the current diagnostics with their counterexamples, the last measurement
// and the trajectory summary; the answer is the whole file in one code
// block or a unified diff. After a rejected candidate the loop asks again with what the server
// said (a repair round). HTTP through cpp-httplib (Debian's
// libcpp-httplib-dev, TLS included); each call has a time limit and is
// retried on network errors and 5xx; a token budget stops the episode.
#pragma once

#include "argus/agent/knowledge_base.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace argus::agent {

struct ModelOptions {
  std::string base_url; // e.g. https://api.example.com/v1 (…/chat/completions is appended)
  std::string model;
  std::string api_key; // sent as a bearer token; never logged
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  int retries = 2;
  int64_t token_budget = 1'000'000; // the episode's total (usage.total_tokens)
  double temperature = 0.2;
};

class ModelError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class ChatClient {
public:
  explicit ChatClient(ModelOptions options);
  // One chat completion: the assistant's text. Throws ModelError (a bad URL,
  // no answer after the retries, an error status, the token budget spent).
  std::string complete(const std::vector<nlohmann::json> &messages);
  int64_t tokens_used() const { return tokens_used_; }
  int64_t calls() const { return calls_; }

private:
  ModelOptions options_;
  std::string origin_, path_;
  int64_t tokens_used_ = 0;
  int64_t calls_ = 0;
};

// What the proposer is told about the kernel's state.
struct ProposalContext {
  std::string file_text;
  std::string kernel;
  const Technique *technique = nullptr; // null: a free move
  nlohmann::json diagnostics;           // the pulled diagnostics (with data)
  std::string measurement;              // "1.234 ms, 120 TFLOP/s" or empty
  std::string trajectory;               // Planner::summary()
  std::string rejection;                // a repair round: why the last candidate failed
  std::string rejected_text;            // and what it was
};

// The chat messages for a proposal (system + user).
std::vector<nlohmann::json> proposal_messages(const ProposalContext &context);
// The new file from an answer: the first fenced code block that is a whole
// Argus file (has a @kernel) or a unified diff (a ```diff block, or one that
// starts with "--- " or "@@ ") that applies to `base`; else a bare diff in
// the answer that applies; nullopt otherwise.
std::optional<std::string> file_from_answer(const std::string &answer, const std::string &base);
// `text` with a unified diff's hunks applied: each hunk's old lines (context
// and removals) must match exactly, at its stated line or the nearest place
// after the previous hunk; nullopt when one does not (or there is no hunk).
std::optional<std::string> apply_unified_diff(const std::string &text, const std::string &diff);

} // namespace argus::agent
