#pragma once
// OpenAI-compatible Chat Completions client (hosted APIs, vLLM, SGLang, llama.cpp server, Ollama) over libcurl.
// complete() BLOCKS: run it on a worker thread (QtConcurrent, a QThread), never on the GUI thread. Calls share only
// the immutable config, so one client may serve several threads at once.

#include "agent/ChatTypes.h"
#include "agent/ProviderConfig.h"

#include <atomic>
#include <functional>

namespace km {

class LlmClient {
public:
    // Called on the thread running complete(), as the text arrives (streams), or once with the whole text.
    using DeltaFn = std::function<void(QString delta)>;
    // Called on the same thread before attempt `nextAttempt` starts: text delivered so far is superseded, because
    // the new attempt streams its reply from the beginning. `why` is the failure (key redacted).
    using RetryFn = std::function<void(int nextAttempt, const Error& why)>;

    explicit LlmClient(ProviderConfig config);
    const ProviderConfig& config() const { return m_config; }

    // POSTs `request` to {base_url}/chat/completions, retrying per config.retries (RetryPolicy.h), and returns the
    // reply with attempts, latency and usage. Cancelled (a state, not a failure) when *cancel turns true: the call
    // then returns within about 100 ms with ErrorCode::Cancelled. Other errors, after retries:
    //   InvalidInput  the server refused the request or the key (400, 401, 403, other 4xx), or a setup error
    //   NotFound      404: wrong base_url, or a model the server does not have
    //   Unsupported   the reply passed config.maxReplyBytes (not retried)
    //   Io            unreachable, timed out, stalled, truncated or malformed replies, 429 and 5xx
    // Error.detail keeps the HTTP body or the offending chunk. The API key appears in no error, log or reply.
    Result<ChatReply> complete(const ChatRequest& request, const DeltaFn& onDelta = {},
                               const std::atomic<bool>* cancel = nullptr, const RetryFn& onRetry = {}) const;

private:
    ProviderConfig m_config;
};

}  // namespace km
