#pragma once
// The UI tests' store worker: one on the test's store file, and a wait for all its answers (the controller and the
// review session run no SQL: what they ask is answered later, on the test's thread).

#include "store/StoreWorker.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QSignalSpy>
#include <memory>

namespace km::test {

// A worker on the test's store file (the test keeps its own TaskStore for checks); aborts the test run when the
// store cannot be opened, which every test here needs.
inline std::unique_ptr<StoreWorker> openWorker(const QString& path)
{
    auto w = StoreWorker::open(path);
    if (!w)
        qFatal("cannot open the store worker on %s: %s", qPrintable(path), qPrintable(w.error().message));
    return std::move(w).value();
}

// Runs the event loop until the worker has answered everything asked of it, and what the answers posted ran too
// (an answer may ask again: waits for those as well). False when it is still busy after 20 s.
inline bool settle(StoreWorker& worker)
{
    const QDeadlineTimer deadline(20000);
    do {
        QCoreApplication::processEvents();  // the answers' follow-ups posted to this thread (queue updates)
        if (worker.pending() > 0) {
            QSignalSpy idle(&worker, &StoreWorker::idle);
            if (!idle.wait(int(qMax<qint64>(1, deadline.remainingTime()))))
                return false;
        }
        QCoreApplication::processEvents();
    } while (worker.pending() > 0 && !deadline.hasExpired());
    return worker.pending() == 0;
}

}  // namespace km::test
