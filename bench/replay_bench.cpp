// kmosaic_replay_bench: the runs and replay views at 10,000 runs and 100,000 steps (issue 19). Generates the store
// (ReplayStoreGenerator) unless --store names one it made before, then times what the views do, on this thread
// with direct calls (the StoreWorker's thread does the same reads):
//   open the runs view (runSummaries + RunsView::setRuns: model, proxy sorted by start, filter choices),
//   a filter or search change (RunFilterProxyModel, p95 over typed and picked filters),
//   open a run (runSummary + stepSummaries, p95 over random runs),
//   switch step (stepDetail with its verdict, and VerdictEvidence::decode, p95 over random steps),
//   unifiedDiff of two 2,000-line solutions, and the process's peak RSS (getrusage).
// Usage: kmosaic_replay_bench [--runs N] [--store PATH] [--keep]
#include "BenchSupport.h"
#include "ReplayStoreGenerator.h"
#include "agent/TextDiff.h"
#include "model/VerdictEvidence.h"
#include "models/RunFilterProxyModel.h"
#include "store/Database.h"
#include "store/RunQuery.h"
#include "store/TaskStore.h"
#include "views/RunsView.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator64>
#include <QTemporaryDir>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace km;
using namespace km::bench;

namespace {
int fail(const QString& what)
{
    QTextStream(stderr) << "kmosaic_replay_bench: " << what << "\n";
    return 1;
}

qint64 peakRssKiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;  // KiB on Linux
}

// Drops the store file's pages from the page cache (written back first), so the next read comes from the disk:
// a cold start without dropping every other process's cache.
bool dropFromCache(const QString& path)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY);  // NOLINT(cppcoreguidelines-pro-type-vararg)
    if (fd < 0)
        return false;
    const bool ok = ::fdatasync(fd) == 0 && ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
    ::close(fd);
    return ok;
}

QString msText(double v)
{
    return num(v, v < 10 ? 2 : 1) + QStringLiteral(" ms");
}

// The filters a reviewer goes through: typing a search, picking states, a speedup range, a label, clearing.
QList<ui::RunFilter> filterSequence()
{
    QList<ui::RunFilter> out;
    ui::RunFilter f;
    for (const QString& typed :
         {QStringLiteral("g"), QStringLiteral("ge"), QStringLiteral("gem"), QStringLiteral("gemm"),
          QStringLiteral("gemm "), QStringLiteral("gemm f"), QStringLiteral("gemm fp"), QStringLiteral("gemm fp16")}) {
        f.search = typed;
        out << f;
    }
    f = {};
    f.states = {RunState::Completed};
    out << f;
    f.states << RunState::Interrupted;
    out << f;
    f.speedupMin = 1.0;
    out << f;
    f.speedupMax = 4.0;
    out << f;
    f.bestStatuses = {QStringLiteral("PASSED")};
    out << f;
    f.label = QStringLiteral("batch 3");
    out << f;
    f.task = QStringLiteral("conv");
    out << f;
    out << ui::RunFilter();
    f = {};
    f.replySources = {QStringLiteral("model gpt-5")};
    out << f;
    f.search = QStringLiteral("500");  // the failed runs' error
    out << f;
    out << ui::RunFilter();
    return out;
}
}  // namespace

int main(int argc, char* argv[])  // NOLINT(bugprone-exception-escape)
{
    qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Times the runs and replay views on a generated store."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Runs to generate (default 10000)."), "N", "10000"});
    parser.addOption({QStringLiteral("store"), QStringLiteral("Use (or generate into) this store file."), "PATH"});
    parser.process(app);

    QTemporaryDir dir;
    QString path = parser.value(QStringLiteral("store"));
    if (path.isEmpty())
        path = dir.filePath(QStringLiteral("replay.sqlite"));
    QTextStream out(stdout);
    out << machineLine() << "\n";
    if (!QFileInfo::exists(path)) {
        auto made = generateReplayStore(path, QStringLiteral(KMOSAIC_TASKS_DIR),
                                        QStringLiteral(KMOSAIC_SOURCE_DIR "/resources/trajectories/"
                                                                          "h200-manual-demonstrations.json"),
                                        parser.value(QStringLiteral("runs")).toInt(), 19);
        if (!made)
            return fail(made.error().message);
        out << "generated " << made.value().runs << " runs, " << made.value().steps << " steps, code "
            << mib(made.value().codeBytes) << " (characters), file " << mib(made.value().fileBytes) << " in "
            << made.value().generateMs << " ms\n";
    }
    const qint64 rssAfterGenerate = peakRssKiB();
    out.flush();

    auto opened = TaskStore::open(path);
    if (!opened)
        return fail(opened.error().message);
    store::Database& db = opened.value()->database();
    QList<Row> rows;
    QElapsedTimer t;

    // 0. Cold: the file's pages dropped from the cache, a fresh connection, the runs view's query.
    const bool cold = dropFromCache(path);
    t.start();
    auto coldRuns = runSummaries(db);
    if (!coldRuns)
        return fail(coldRuns.error().message);
    const qint64 coldNs = t.nsecsElapsed();
    rows.append({QStringLiteral("runSummaries, store file dropped from the page cache%1")
                     .arg(cold ? QString() : QStringLiteral(" (drop FAILED: warm)")),
                 msText(ms(coldNs)), QStringLiteral("< 1 s")});

    // 1. Open the runs view: every summary, then the view's model, sorted proxy and choices.
    ui::RunsView view;
    t.restart();
    auto runs = runSummaries(db);
    if (!runs)
        return fail(runs.error().message);
    const qint64 queryNs = t.nsecsElapsed();
    view.setRuns(runs.value());
    const qint64 openNs = t.nsecsElapsed();
    QList<qint64> reopen;
    for (int i = 0; i < 5; ++i) {
        t.restart();
        auto again = runSummaries(db);
        if (!again)
            return fail(again.error().message);
        view.setRuns(again.value());  // the live refresh: same ids, updated in place
        reopen << t.nsecsElapsed();
    }
    rows.append({QStringLiteral("open the runs view: runSummaries (%1 runs) + setRuns").arg(runs.value().size()),
                 QStringLiteral("%1 (query %2)").arg(msText(ms(openNs)), msText(ms(queryNs))),
                 QStringLiteral("< 1 s")});
    rows.append({QStringLiteral("refresh of the runs view (same query + in-place setRuns), median of 5"),
                 msText(median(reopen)), QStringLiteral("< 1 s")});

    // 2. Filter and search changes.
    QList<qint64> filters;
    int lastVisible = 0;
    for (int pass = 0; pass < 3; ++pass)
        for (const ui::RunFilter& f : filterSequence()) {
            t.restart();
            view.setFilter(f);
            lastVisible += view.counts().visible;
            filters << t.nsecsElapsed();
        }
    rows.append(
        {QStringLiteral("filter or search change (%1 changes)").arg(filters.size()),
         QStringLiteral("p95 %1, max %2").arg(msText(percentile(filters, 0.95)), msText(percentile(filters, 1.0))),
         QStringLiteral("p95 < 50 ms")});

    // 3. Open a run; 4. switch step.
    QRandomGenerator64 rng(7);
    QList<qint64> opens;
    QList<qint64> stepIds;
    for (int i = 0; i < 200; ++i) {
        const RunSummary& r = runs.value()[int(rng.bounded(qsizetype(runs.value().size())))];
        t.restart();
        auto one = runSummary(db, r.id);
        auto steps = stepSummaries(db, r.id);
        opens << t.nsecsElapsed();
        if (!one || !steps)
            return fail(QStringLiteral("open run %1 failed").arg(r.id));
        for (const StepSummary& s : steps.value())
            stepIds << s.id;
    }
    rows.append({QStringLiteral("open a run: runSummary + stepSummaries (200 runs)"),
                 QStringLiteral("p95 %1").arg(msText(percentile(opens, 0.95))), QStringLiteral("p95 < 100 ms")});
    QList<qint64> switches;
    qint64 codeChars = 0;
    for (int i = 0; i < 500 && !stepIds.isEmpty(); ++i) {
        const qint64 id = stepIds[int(rng.bounded(qsizetype(stepIds.size())))];
        t.restart();
        auto d = stepDetail(db, id);
        if (!d)
            return fail(d.error().message);
        if (d.value().verdict)
            if (auto e = VerdictEvidence::decode(d.value().verdict->evidence); !e)
                return fail(e.error().message);
        switches << t.nsecsElapsed();
        codeChars += d.value().step.code.size() + d.value().previousCode.size();
    }
    rows.append({QStringLiteral("switch step: stepDetail + verdict + evidence decode (500 steps)"),
                 QStringLiteral("p95 %1").arg(msText(percentile(switches, 0.95))), QStringLiteral("p95 < 30 ms")});

    // 5. The diff of two 2,000-line solutions: the second rewrites about one line in twenty.
    const QString a = generatedCode(2000, 101);
    QStringList bLines = a.split(QLatin1Char('\n'));
    for (int i = 3; i < bLines.size(); i += 20)
        bLines[i] = QStringLiteral("    y[i] = fmaxf(v, 0.0f);  // rewritten %1").arg(i);
    const QString b = bLines.join(QLatin1Char('\n'));
    QList<qint64> diffs;
    qsizetype diffChars = 0;
    for (int i = 0; i < 10; ++i) {
        t.restart();
        diffChars = unifiedDiff(a, b).size();
        diffs << t.nsecsElapsed();
    }
    rows.append({QStringLiteral("unifiedDiff of two 2,000-line solutions (%1 changed lines)").arg(bLines.size() / 20),
                 QStringLiteral("median %1, max %2").arg(msText(median(diffs)), msText(percentile(diffs, 1.0))),
                 QStringLiteral("< 50 ms")});
    // The worst case: a rewrite sharing only the common lines of the vocabulary (another seed).
    const QString c = generatedCode(2000, 202);
    QList<qint64> rewrites;
    for (int i = 0; i < 5; ++i) {
        t.restart();
        diffChars += unifiedDiff(a, c).size();
        rewrites << t.nsecsElapsed();
    }
    rows.append({QStringLiteral("unifiedDiff of two unrelated 2,000-line solutions (a rewrite)"),
                 QStringLiteral("median %1, max %2").arg(msText(median(rewrites)), msText(percentile(rewrites, 1.0))),
                 QStringLiteral("< 50 ms")});
    rows.append({QStringLiteral("peak RSS (getrusage), after generating / at the end"),
                 QStringLiteral("%1 / %2").arg(mib(rssAfterGenerate * 1024), mib(peakRssKiB() * 1024)),
                 QStringLiteral("< 400 MB")});
    out << "\n";
    printTable(out, {QStringLiteral("metric"), QStringLiteral("value"), QStringLiteral("target")}, rows);
    out << "(checks: " << lastVisible << " rows seen, " << codeChars << " code characters read, diff " << diffChars
        << " characters)\n";
    return 0;
}
