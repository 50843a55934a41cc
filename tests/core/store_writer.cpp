// kmosaic_store_writer: a helper process for test_store_processes, on its main thread.
//   kmosaic_store_writer DB COUNT_START   commits task w-<n>, n = COUNT_START, COUNT_START+1, ... forever, one task
//                                         per transaction; after each commit prints "committed <n> <content hash>".
//   kmosaic_store_writer DB --reader      prints "open", then "count <n>" for each count() it reads, forever.
// Any store error is printed on stderr and ends the program with status 1.
#include "store/TaskStore.h"

#include <QCoreApplication>
#include <QThread>
#include <cstdio>

namespace {

// Deterministic content of task w-<n>, some KB of reference text so every commit writes several pages.
km::Task writerTask(qint64 n)
{
    km::Task t;
    t.id = QStringLiteral("w-%1").arg(n);
    t.title = QStringLiteral("Writer task %1").arg(n);
    t.level = int(n % 4) + 1;
    t.categories = {QStringLiteral("elementwise"), QStringLiteral("fused")};
    t.tags = {QStringLiteral("writer"), QStringLiteral("batch-%1").arg(n / 10)};
    t.shown = km::PresentationSet{km::Presentation::Description, km::Presentation::Reference};
    t.dtype = n % 2 ? QStringLiteral("float16") : QStringLiteral("float32");
    t.tolerance = km::Tolerance{1e-3, double(n) / 1000.0};
    t.configs = {km::TaskConfig{QStringLiteral("small"),
                                {{QStringLiteral("N"), qint64(n)}, {QStringLiteral("scale"), double(n) + 0.5}}}};
    t.description = QStringLiteral("Task number %1 written by the store writer.").arg(n);
    QString reference = QStringLiteral("import torch\n\n# task %1\n").arg(n);
    for (int line = 0; reference.size() < 6000; ++line)
        reference += QStringLiteral("x_%1 = torch.relu(x_%2) * %3  # padding so the row spans pages\n")
                         .arg(line + 1)
                         .arg(line)
                         .arg(n);
    t.reference = reference;
    return t;
}

int fail(const QString& what, const km::Error& e)
{
    std::fprintf(stderr, "kmosaic_store_writer: %s: %s\n", qPrintable(what), qPrintable(e.message));
    return 1;
}

}  // namespace

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() != 3) {
        std::fprintf(stderr, "usage: kmosaic_store_writer DB COUNT_START | kmosaic_store_writer DB --reader\n");
        return 2;
    }
    auto store = km::TaskStore::open(args[1]);
    if (!store)
        return fail(QStringLiteral("open"), store.error());
    km::TaskStore& s = *store.value();

    if (args[2] == QLatin1String("--reader")) {
        std::printf("open\n");
        std::fflush(stdout);
        for (;;) {
            auto n = s.count();
            if (!n)
                return fail(QStringLiteral("count"), n.error());
            std::printf("count %d\n", n.value());
            std::fflush(stdout);
            QThread::msleep(2);  // pacing only, so the reader does not flood the pipe; nothing waits on it
        }
    }

    bool ok = false;
    qint64 n = args[2].toLongLong(&ok);
    if (!ok || n < 0) {
        std::fprintf(stderr, "kmosaic_store_writer: COUNT_START must be a number, not '%s'\n", qPrintable(args[2]));
        return 2;
    }
    for (;; ++n) {
        const km::Task t = writerTask(n);
        auto r = s.upsertTask(t, QStringLiteral("writer"), QStringLiteral("store writer"));
        if (!r)
            return fail(QStringLiteral("upsert %1").arg(t.id), r.error());
        // One write(2) per line: a kill between lines never leaves half a line behind.
        std::printf("committed %lld %s\n", static_cast<long long>(n), t.contentHash().constData());
        std::fflush(stdout);
    }
}
