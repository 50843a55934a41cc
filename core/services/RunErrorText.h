#pragma once
// A run's or a request's error (the LLM client's message, an AgentOutcome's error, a run's stored error) in plain
// words a reviewer can act on, ahead of the original message. Pure, any thread.

#include <QString>

namespace km {

// "The endpoint refused the API key (HTTP 401) ...", "Nothing answers at the endpoint ...", "Rate limited (HTTP
// 429) ...", "The endpoint did not answer in time ..."; other errors as they are. The original follows after " — ".
// Empty stays empty.
QString plainRunError(const QString& message);

}  // namespace km
