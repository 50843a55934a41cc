#pragma once
// Task <-> a QVariantMap with the keys of task.toml (plus description, reference, spec). The one mapping shared by
// the TOML and JSONL formats and the content hash, so the formats cannot drift apart.

#include "model/Task.h"
#include "util/Result.h"

#include <QVariantMap>

namespace km {

// All fields; presentations' text included unless withTexts is false (task.toml holds metadata only).
QVariantMap taskToVariant(const Task& task, bool withTexts = true);

// Type-checks every key; an Error's detail names the offending key path (e.g. "configs[1].batch").
// Unknown keys are errors too: a typo must not vanish silently. Returns the first error; allErrors, when given, gets
// every one (one per key at most).
Result<Task> taskFromVariant(const QVariantMap& map, bool withTexts = true, QList<Error>* allErrors = nullptr);

}  // namespace km
