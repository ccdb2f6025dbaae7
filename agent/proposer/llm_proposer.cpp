// The model proposer: llm_proposer.h.
#include "argus/agent/llm_proposer.h"

#include <httplib.h>

#include <thread>

namespace argus::agent {

using nlohmann::json;

ChatClient::ChatClient(ModelOptions options) : options_(std::move(options)) {
  const std::string &url = options_.base_url;
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos ||
      (url.compare(0, scheme, "http") != 0 && url.compare(0, scheme, "https") != 0))
    throw ModelError("the model URL must be http:// or https://: '" + url + "'");
  const size_t slash = url.find('/', scheme + 3);
  origin_ = url.substr(0, slash);
  path_ = slash == std::string::npos ? "" : url.substr(slash);
  while (!path_.empty() && path_.back() == '/')
    path_.pop_back();
  path_ += "/chat/completions";
}

std::string ChatClient::complete(const std::vector<json> &messages) {
  if (tokens_used_ >= options_.token_budget)
    throw ModelError("the token budget (" + std::to_string(options_.token_budget) + ") is spent");
  const json body = {
      {"model", options_.model}, {"messages", messages}, {"temperature", options_.temperature}};
  httplib::Headers headers;
  if (!options_.api_key.empty())
    headers.emplace("Authorization", "Bearer " + options_.api_key);
  std::string last_error;
  for (int attempt = 0; attempt <= options_.retries; ++attempt) {
    if (attempt > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
    httplib::Client client(origin_);
    const auto seconds = options_.timeout.count() / 1000,
               micros = options_.timeout.count() % 1000 * 1000;
    client.set_connection_timeout(seconds, micros);
    client.set_read_timeout(seconds, micros);
    client.set_write_timeout(seconds, micros);
    ++calls_;
    const auto response = client.Post(path_, headers, body.dump(), "application/json");
    if (!response) {
      last_error = "no answer from " + origin_ + " (" + httplib::to_string(response.error()) + ")";
      continue;
    }
    if (response->status >= 500) {
      last_error = origin_ + path_ + " answered " + std::to_string(response->status);
      continue;
    }
    if (response->status != 200)
      throw ModelError(origin_ + path_ + " answered " + std::to_string(response->status) + ": " +
                       response->body.substr(0, 300));
    const json answer = json::parse(response->body, nullptr, false);
    if (answer.is_discarded() || !answer.contains("choices") || !answer["choices"].is_array() ||
        answer["choices"].empty())
      throw ModelError("not a chat completion: " + response->body.substr(0, 300));
    if (answer.contains("usage") && answer["usage"].is_object())
      tokens_used_ += answer["usage"].value("total_tokens", int64_t{0});
    const json &message = answer["choices"][0].value("message", json::object());
    if (!message.contains("content") || !message["content"].is_string())
      throw ModelError("a chat completion without text: " + response->body.substr(0, 300));
    return message["content"].get<std::string>();
  }
  throw ModelError(last_error + " after " + std::to_string(options_.retries + 1) + " attempts");
}

} // namespace argus::agent
