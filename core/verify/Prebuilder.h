#pragma once
// Builds a batch's solutions ahead of the verifier: `python3 -m kmosaic_harness build` over all of them, several at
// once on the CPU cores, while the worker verifies one at a time. Both use the extension store's per-key locks, so
// a verification whose build is under way waits for it instead of building again. Lives on the caller's thread.

#include "util/Result.h"

#include <QElapsedTimer>
#include <QPair>
#include <QProcess>
#include <QTemporaryDir>
#include <memory>

namespace km {

struct PrebuildTally {
    int built = 0;
    int failed = 0;
};

// One line of the build command's output ("built  12.3 s  FILE", "FAILED  3.1 s  FILE  (why)") added to a tally.
void tallyPrebuildLine(const QString& line, PrebuildTally& tally);

class Prebuilder {
public:
    Prebuilder() = default;
    ~Prebuilder();  // a build still running when the batch ends is stopped
    Prebuilder(const Prebuilder&) = delete;
    Prebuilder& operator=(const Prebuilder&) = delete;

    // (path, source) pairs in verification order; a path that is not a file (inline code) is written to a
    // temporary file first.
    Status start(const QList<QPair<QString, QString>>& solutions, const QString& cacheRoot, int jobs);
    // "; builds ahead: 40 built, 2 failed, 2m10s" (empty when none ran).
    QString summary();

private:
    std::unique_ptr<QProcess> m_process;
    std::unique_ptr<QTemporaryDir> m_dir;
    QElapsedTimer m_clock;
    PrebuildTally m_tally;
    QByteArray m_pending;
};

}  // namespace km
