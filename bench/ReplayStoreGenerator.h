#pragma once
// Generates the replay benchmark's store (issue 19): the bundled tasks, the shipped H200 demonstrations imported,
// then N runs with about ten steps each written by direct SQL in one transaction (prepared statements): code of 50
// to 2,000 lines (log-uniform), verdicts whose evidence, environment and findings are copies of the demonstrations'
// real H200 verdicts. Deterministic for a seed. One thread (the caller's).

#include "util/Result.h"

#include <QString>

namespace km::bench {

struct ReplayStoreFacts {
    int runs = 0;
    int steps = 0;
    qint64 codeBytes = 0;
    qint64 fileBytes = 0;
    qint64 generateMs = 0;
};

// Writes into `path` (a new file). tasksDir: the bundled tasks; bundle: the demonstrations' JSON.
Result<ReplayStoreFacts> generateReplayStore(const QString& path, const QString& tasksDir, const QString& bundle,
                                             int runs, quint64 seed);

// A solution of `lines` lines, as the generator writes them (for the diff measurement).
QString generatedCode(int lines, quint64 seed);

}  // namespace km::bench
