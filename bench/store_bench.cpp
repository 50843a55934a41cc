// kmosaic_store_bench: generates a reproducible store of N realistic tasks, then times import, re-import, full-text
// queries and the unfiltered list through the core API and prints a table. Runs on the main thread only.
#include "BenchSupport.h"
#include "TaskGenerator.h"
#include "curate/Importer.h"
#include "curate/JsonlFormat.h"
#include "store/Database.h"
#include "store/TaskStore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDate>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <algorithm>
#include <cmath>

#ifndef KMOSAIC_BENCH_BUILD_TYPE
#define KMOSAIC_BENCH_BUILD_TYPE "unknown"
#endif

namespace {
using namespace km;
using namespace km::bench;

// The query mix: what people type into the search box of the task list, with and without a filter.
struct BenchQuery {
    const char* kind;
    QString text;
    QList<ReviewStatus> statuses;
    QList<int> levels;
};
QList<BenchQuery> queryMix()
{
    QList<BenchQuery> q;
    const auto add = [&q](const char* kind, const char* words) {
        for (const QString& w : QString::fromLatin1(words).split(QLatin1Char('|')))
            q.append({kind, w, {}, {}});
    };
    add("frequent word", "kernel|memory|shared|warp|thread|block|input|output|reference|configuration");
    add("topic word", "softmax|gemm|conv|attention|layernorm|reduction|pooling|embedding|scan|loss|gelu|relu|fp16|"
                      "bfloat16|transformer|epilogue|tiles|occupancy|coalesced|vectorised");
    add("rare word", "Strassen|Morton|Householder|Cholesky|Sinkhorn|Karatsuba|Hadamard|Chebyshev|Horner|Remez|Givens|"
                     "Sobol|Montgomery|Goldschmidt|Hilbert");
    add("two words", "shared memory|tensor cores|online softmax|warp shuffles|bank conflicts|split k|layer norm|"
                     "register pressure|persistent grid|causal mask|global memory|grid stride|double buffering|"
                     "L2 reuse|implicit gemm");
    add("prefix", "soft|norm|conv|atten|coalesc|vector|reduc|transp|gem|pool|epilog|async|swizz|occup|quant");
    add("code word", "matmul|bmm|einsum|layer_norm|conv2d|scaled_dot_product_attention|get_init_inputs|nn.Linear|"
                     "torch.softmax|F.gelu|index_select|cross_entropy|ModuleList|rsqrt|is_floating_point");
    using RS = ReviewStatus;
    const char* kind = "word + filter";
    q += {{kind, QStringLiteral("shared memory"), {RS::Accepted}, {}},
          {kind, QStringLiteral("kernel"), {RS::Draft}, {}},
          {kind, QStringLiteral("tensor cores"), {RS::InReview}, {}},
          {kind, QStringLiteral("conv"), {RS::Accepted, RS::InReview}, {}},
          {kind, QStringLiteral("Cholesky"), {RS::Draft}, {}},
          {kind, QStringLiteral("softmax"), {}, {1}},
          {kind, QStringLiteral("matmul"), {}, {2}},
          {kind, QStringLiteral("norm"), {}, {3}},
          {kind, QStringLiteral("fp16"), {}, {1, 2}},
          {kind, QStringLiteral("einsum"), {}, {2}}};
    return q;
}

struct FileSizes {
    qint64 main, wal, shm;
    qint64 total() const { return main + wal + shm; }
    QString text() const
    {
        return QStringLiteral("%1 (main %2, -wal %3, -shm %4)").arg(mib(total()), mib(main), mib(wal), mib(shm));
    }
};
FileSizes sizesOf(const QString& path)
{
    return {QFileInfo(path).size(), QFileInfo(path + QStringLiteral("-wal")).size(),
            QFileInfo(path + QStringLiteral("-shm")).size()};
}

int fail(const QString& what)
{
    QTextStream(stderr) << "kmosaic_store_bench: " << what << "\n";
    return 1;
}
}  // namespace

// Result::value() is std::get: it throws only on a programming error, which should end the benchmark.
int main(int argc, char* argv[])  // NOLINT(bugprone-exception-escape)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kmosaic_store_bench"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Generates N tasks, imports them into a fresh store and "
                                                    "times import, full-text queries and the task list."));
    parser.addHelpOption();
    const QCommandLineOption tasksOpt(QStringLiteral("tasks"), QStringLiteral("Tasks to generate (10000)."),
                                      QStringLiteral("N"), QStringLiteral("10000"));
    const QCommandLineOption outOpt(QStringLiteral("out"),
                                    QStringLiteral("Folder for bench-<N>.jsonl and bench-<N>.sqlite, replaced if there "
                                                   "(default: a temporary folder)."),
                                    QStringLiteral("DIR"));
    const QCommandLineOption keepOpt(QStringLiteral("keep"), QStringLiteral("Keep the store and the JSONL file."));
    const QCommandLineOption seedOpt(QStringLiteral("seed"), QStringLiteral("Generator seed (1)."), QStringLiteral("S"),
                                     QStringLiteral("1"));
    const QCommandLineOption verboseOpt(QStringLiteral("verbose"), QStringLiteral("Print each query: ms and rows."));
    parser.addOptions({tasksOpt, outOpt, keepOpt, seedOpt, verboseOpt});
    parser.process(app);
    bool okN = false, okSeed = false;
    const int n = parser.value(tasksOpt).toInt(&okN);
    const quint64 seed = parser.value(seedOpt).toULongLong(&okSeed);
    if (!okN || n < 1 || n > 99999 || !okSeed)
        return fail(QStringLiteral("--tasks takes 1 to 99999 and --seed a non-negative integer"));
    const bool keep = parser.isSet(keepOpt);
    QTextStream out(stdout);

    QTemporaryDir tmp;
    tmp.setAutoRemove(!keep || parser.isSet(outOpt));
    const QString dir = parser.isSet(outOpt) ? QDir(parser.value(outOpt)).absolutePath() : tmp.path();
    if (!QDir().mkpath(dir))
        return fail(QStringLiteral("cannot create %1").arg(dir));
    const QString base = n % 1000 == 0 ? QStringLiteral("bench-%1k").arg(n / 1000) : QStringLiteral("bench-%1").arg(n);
    const QString jsonlPath = QDir(dir).filePath(base + QStringLiteral(".jsonl"));
    const QString storePath = QDir(dir).filePath(base + QStringLiteral(".sqlite"));
    const auto removeStore = [&storePath] {
        for (const char* suffix : {"", "-wal", "-shm"})
            QFile::remove(storePath + QLatin1String(suffix));
    };
    removeStore();  // the import goes into a fresh store

    // 1. Generate the task set and write it as one JSONL file.
    if (const QString problem = bench::vocabularyProblem(); !problem.isEmpty())
        return fail(problem);
    QElapsedTimer timer;
    timer.start();
    QList<Task> tasks;
    qint64 textBytes[3] = {}, textCount[3] = {};
    int levels[5] = {};
    for (int i = 0; i < n; ++i) {
        tasks.append(bench::generateTask(i, seed));
        ++levels[tasks.last().level];
        const QString* texts[] = {&tasks.last().description, &tasks.last().reference, &tasks.last().spec};
        for (int k = 0; k < 3; ++k)
            textBytes[k] += texts[k]->toUtf8().size(), textCount[k] += texts[k]->isEmpty() ? 0 : 1;
    }
    if (Status s = writeTasksJsonl(tasks, jsonlPath); !s)
        return fail(s.error().message);
    const qint64 generateNs = timer.nsecsElapsed();
    tasks.clear();

    // 2. Import into a fresh store, then the same file again: every task unchanged.
    auto opened = TaskStore::open(storePath);
    if (!opened)
        return fail(opened.error().message);
    std::unique_ptr<TaskStore> store = std::move(opened).value();
    const QString actor = QStringLiteral("bench");
    timer.restart();
    const auto imported = importTasks(*store, jsonlPath, TaskFormat::Jsonl, actor);
    const qint64 importNs = timer.nsecsElapsed();
    if (!imported || imported->created != n)
        return fail(!imported ? imported.error().message
                              : QStringLiteral("import created %1 of %2 tasks; first issue: %3")
                                    .arg(imported->created)
                                    .arg(n)
                                    .arg(imported->issues.isEmpty() ? QString() : imported->issues.first().format()));
    timer.restart();
    const auto reimported = importTasks(*store, jsonlPath, TaskFormat::Jsonl, actor);
    const qint64 reimportNs = timer.nsecsElapsed();
    if (!reimported || reimported->unchanged != n)
        return fail(!reimported ? reimported.error().message
                                : QStringLiteral("re-import: %1 of %2 unchanged").arg(reimported->unchanged).arg(n));

    // 3. The unfiltered list (what the task list shows first), then the full-text query mix, each timed alone.
    QList<qint64> listNs;
    for (int i = 0; i < 10; ++i) {
        timer.restart();
        const auto all = store->summaries();
        listNs.append(timer.nsecsElapsed());
        if (!all || all->size() != n)
            return fail(QStringLiteral("the unfiltered list does not hold %1 tasks").arg(n));
    }
    // Each query twice: the search itself (the ids the filter selects: what the task list asks of the store, since
    // it already holds every summary), and the same filter materialised as summary rows (what the CLI prints).
    QList<qint64> queryNs, summaryNs, pageNs;  // pageNs: summary rows of the first kPage matches only
    constexpr int kPage = 500;
    QMap<QString, QList<qint64>> kindNs;
    QMap<QString, qint64> kindRows;
    qint64 totalRows = 0;
    for (const BenchQuery& q : queryMix()) {
        TaskFilter f;
        f.statuses = q.statuses;
        f.levels = q.levels;
        f.text = q.text;
        timer.restart();
        const auto ids = store->matchingIds(f);
        const qint64 ns = timer.nsecsElapsed();
        timer.restart();
        const auto rows = store->summaries(f);
        summaryNs.append(timer.nsecsElapsed());
        f.limit = kPage;
        timer.restart();
        const auto page = store->summaries(f);
        pageNs.append(timer.nsecsElapsed());
        if (!ids || !rows || !page)
            return fail(!ids ? ids.error().message : !rows ? rows.error().message : page.error().message);
        if (ids->size() != rows->size())
            return fail(
                QStringLiteral("'%1': %2 ids but %3 summary rows").arg(q.text).arg(ids->size()).arg(rows->size()));
        const QString kind = QString::fromLatin1(q.kind);
        queryNs.append(ns), kindNs[kind].append(ns), kindRows[kind] += ids->size(), totalRows += ids->size();
        if (parser.isSet(verboseOpt))
            out << QStringLiteral("%1 ms %2 rows  %3: %4\n")
                       .arg(num(ms(ns), 2), 8)
                       .arg(ids->size(), 6)
                       .arg(kind, q.text);
    }

    // 4. Size on disk, before and after folding the write-ahead log into the main file.
    const FileSizes before = sizesOf(storePath);
    auto checkpoint = store->database().exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
    if (!checkpoint)
        return fail(checkpoint.error().message);
    const bool busy = checkpoint.value().next() && checkpoint.value().value(0).toInt() != 0;
    checkpoint.value().finish();
    const FileSizes after = sizesOf(storePath);
    QString split;  // where the pages go, when SQLite has the dbstat table
    if (auto q = store->database().exec(QStringLiteral(
            "SELECT CASE WHEN name LIKE 'tasks_fts%' THEN 'full-text index' WHEN name IN ('tasks', 'tasks_by_status', "
            "'tasks_by_level', 'sqlite_autoindex_tasks_1') THEN 'tasks' ELSE 'other' END AS part, sum(pgsize) "
            "FROM dbstat GROUP BY part ORDER BY 2 DESC"));
        q)
        while (q.value().next())
            split += QStringLiteral("%1%2 %3").arg(split.isEmpty() ? QString() : QStringLiteral(", "),
                                                   q.value().value(0).toString(), mib(q.value().value(1).toLongLong()));
    QString sqliteVersion = QStringLiteral("?");
    if (auto v = store->database().exec(QStringLiteral("SELECT sqlite_version()")); v && v.value().next())
        sqliteVersion = v.value().value(0).toString();
    store.reset();

    // 5. Report.
    const double p95 = percentile(queryNs, 0.95);
    const QString buildType = QStringLiteral(KMOSAIC_BENCH_BUILD_TYPE);
    const auto rate = [n](qint64 ns) {
        return QStringLiteral("%1 s (%2 tasks/s)").arg(num(ms(ns) / 1000, 2), num(n / (ms(ns) / 1000), 0));
    };
    out << "kmosaic_store_bench --tasks " << n << " --seed " << seed << "\n"
        << QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")) << "; "
        << QThread::idealThreadCount() << " cores, " << procField("/proc/cpuinfo", "model name") << ", RAM " << ramGiB()
        << "; Qt " << qVersion() << ", SQLite " << sqliteVersion << "; "
        << (buildType.isEmpty() ? QStringLiteral("no CMAKE_BUILD_TYPE") : buildType + QStringLiteral(" build")) << "\n"
        << "Tasks: levels 1/2/3/4 = " << levels[1] << "/" << levels[2] << "/" << levels[3] << "/" << levels[4]
        << "; JSONL " << mib(QFileInfo(jsonlPath).size()) << " generated in " << num(ms(generateNs) / 1000, 1)
        << " s\nTexts:";
    for (int k = 0; k < 3; ++k)
        out << (k ? "; " : " ")
            << (k == 0   ? "description"
                : k == 1 ? "reference"
                         : "spec")
            << " in " << num(100.0 * double(textCount[k]) / n, 0) << "% of tasks, mean "
            << textBytes[k] / std::max<qint64>(1, textCount[k]) << " B";
    out << "\n\nFull-text queries by kind:\n";
    QList<Row> kinds;
    for (auto it = kindNs.cbegin(); it != kindNs.cend(); ++it)
        kinds.append({QStringLiteral("%1 (%2)").arg(it.key()).arg(it.value().size()),
                      QStringLiteral("%1 / %2 ms").arg(num(median(it.value()), 2), num(percentile(it.value(), 1), 2)),
                      num(double(kindRows[it.key()]) / double(it.value().size()), 0)});
    printTable(out, {QStringLiteral("kind (queries)"), QStringLiteral("median / max"), QStringLiteral("mean rows")},
               kinds);
    out << "\n";
    printTable(
        out, {QStringLiteral("metric"), QStringLiteral("value"), QStringLiteral("target")},
        {{QStringLiteral("import %1 tasks from JSONL into a fresh store").arg(n), rate(importNs), {}},
         {QStringLiteral("re-import of the same file (all unchanged)"), rate(reimportNs), {}},
         {QStringLiteral("list all summaries, median of 10"), num(median(listNs), 1) + QStringLiteral(" ms"), {}},
         {QStringLiteral("full-text search (matching ids), median of %1").arg(queryNs.size()),
          num(median(queryNs), 2) + QStringLiteral(" ms"),
          {}},
         {QStringLiteral("full-text search (matching ids), p95"), num(p95, 2) + QStringLiteral(" ms"),
          QStringLiteral("< 20 ms: ") + (p95 < 20.0 ? QStringLiteral("PASS") : QStringLiteral("FAIL"))},
         {QStringLiteral("full-text search (matching ids), max"),
          num(percentile(queryNs, 1), 2) + QStringLiteral(" ms"),
          {}},
         {QStringLiteral("full-text search, mean matches"), num(double(totalRows) / double(queryNs.size()), 0), {}},
         {QStringLiteral("same queries as summary rows: median / p95"),
          QStringLiteral("%1 / %2 ms").arg(num(median(summaryNs), 2), num(percentile(summaryNs, 0.95), 2)),
          {}},
         {QStringLiteral("same queries as the first %1 summary rows: median / p95").arg(kPage),
          QStringLiteral("%1 / %2 ms").arg(num(median(pageNs), 2), num(percentile(pageNs, 0.95), 2)),
          {}},
         {QStringLiteral("store on disk after the queries"), before.text(), {}},
         {QStringLiteral("store on disk after wal_checkpoint(TRUNCATE)"),
          after.text() + (busy ? QStringLiteral(" (checkpoint busy)") : QString()),
          {}},
         {QStringLiteral("of which"), split.isEmpty() ? QStringLiteral("(no dbstat)") : split, {}}});
    if (keep) {
        out << "\nKept the store: " << storePath << "\nand its source:  " << jsonlPath << "\n";
    } else {
        removeStore();
        QFile::remove(jsonlPath);
    }
    return 0;
}
