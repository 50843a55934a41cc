// kmosaic_workbench_bench: the workbench on a large store. Times, in one process on the offscreen platform: opening
// the store and painting the task list, search and filter changes, switching tasks; reports resident memory.
// The store comes from kmosaic_store_bench --keep (docs/benchmarks.md).
#include "BenchSupport.h"
#include "controller/WorkbenchController.h"
#include "models/TaskTableModel.h"
#include "store/StoreWorker.h"
#include "views/FilterPanel.h"
#include "views/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QListWidget>
#include <QRandomGenerator>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

using namespace km;
using namespace km::bench;

namespace {
// Waits until the task list's viewport has painted (the user sees the result), processing events meanwhile.
class PaintWatch : public QObject {
public:
    explicit PaintWatch(QWidget* viewport) : m_viewport(viewport) { viewport->installEventFilter(this); }
    void arm() { m_painted = false; }
    bool waitPainted(int timeoutMs = 5000)
    {
        QElapsedTimer t;
        t.start();
        m_viewport->update();
        while (!m_painted && t.elapsed() < timeoutMs)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        return m_painted;
    }
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (o == m_viewport && e->type() == QEvent::Paint)
            m_painted = true;
        return false;
    }

private:
    QWidget* m_viewport;
    bool m_painted = false;
};

// Runs the event loop until the store worker has answered all it was asked (the list, the task, a search).
bool settle(StoreWorker& worker, int timeoutMs = 30000)
{
    QElapsedTimer t;
    t.start();
    do
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    while (worker.pending() > 0 && t.elapsed() < timeoutMs);
    return worker.pending() == 0;
}

qint64 rssKiB(const char* key)
{
    return procField("/proc/self/status", key).section(QLatin1Char(' '), 0, 0).toLongLong();
}

int fail(const QString& what)
{
    QTextStream(stderr) << "kmosaic_workbench_bench: " << what << "\n";
    return 1;
}
}  // namespace

int main(int argc, char* argv[])  // NOLINT(bugprone-exception-escape)
{
    QElapsedTimer sinceStart;
    sinceStart.start();
    qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Times the workbench on a store made by kmosaic_store_bench --keep."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("store"),
                                 QStringLiteral("The store file (e.g. build/bench/bench-10k.sqlite)."));
    parser.process(app);
    if (parser.positionalArguments().size() != 1 || !QFileInfo(parser.positionalArguments().first()).isFile())
        return fail(QStringLiteral("give the path of an existing store (kmosaic_store_bench --keep makes one)"));
    const QString path = parser.positionalArguments().first();
    const qint64 rssBefore = rssKiB("VmRSS");

    // 1. Open the store, build the window, paint the list.
    QElapsedTimer timer;
    timer.start();
    auto opened = StoreWorker::open(path);
    if (!opened)
        return fail(opened.error().message);
    std::unique_ptr<StoreWorker> store = std::move(opened).value();
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("bench.ini")), QSettings::IniFormat);
    ui::WorkbenchController controller(*store, QStringLiteral("bench"));
    ui::MainWindow window(controller, settings);
    auto* table = window.findChild<QTableView*>(QStringLiteral("taskTable"));
    PaintWatch paint(table->viewport());
    window.show();
    if (!settle(*store) || !paint.waitPainted())
        return fail(QStringLiteral("the task list never painted"));
    const qint64 firstPaintNs = timer.nsecsElapsed();
    const qint64 fromMainNs = sinceStart.nsecsElapsed();
    const int tasks = table->model()->rowCount();

    // 2. Search changes: the query applied, the list filtered and painted.
    const QStringList words{QStringLiteral("kernel"),       QStringLiteral("softmax"),
                            QStringLiteral("Cholesky"),     QStringLiteral("shared memory"),
                            QStringLiteral("coalesc"),      QStringLiteral("matmul"),
                            QStringLiteral("tensor cores"), QStringLiteral("layer_norm"),
                            QStringLiteral("warp"),         QStringLiteral("")};
    QList<qint64> searchNs;
    for (int round = 0; round < 10; ++round)
        for (const QString& w : words) {
            paint.arm();
            timer.restart();
            window.setSearchText(w);
            settle(*store);
            paint.waitPainted();
            searchNs.append(timer.nsecsElapsed());
        }

    // 3. Facet changes: check and uncheck each status, level and presentation value in turn.
    QList<qint64> facetNs;
    for (const char* name : {"statusFilter", "levelFilter", "presentationFilter", "categoryFilter"}) {
        auto* list = window.findChild<ui::FilterPanel*>()->findChild<QListWidget*>(QLatin1String(name));
        for (int i = 0; i < list->count() && i < 8; ++i)
            for (Qt::CheckState state : {Qt::Checked, Qt::Unchecked}) {
                paint.arm();
                timer.restart();
                list->item(i)->setCheckState(state);
                paint.waitPainted();
                facetNs.append(timer.nsecsElapsed());
            }
    }

    // 4. Switching tasks: 100 random tasks of the full list, each loaded into the task view.
    window.setSearchText({});
    settle(*store);
    QList<qint64> switchNs;
    QRandomGenerator rng(7);
    for (int i = 0; i < 100; ++i) {
        const QString id = table->model()
                               ->index(int(rng.bounded(table->model()->rowCount())), 0)
                               .data(ui::TaskTableModel::TaskIdRole)
                               .toString();
        paint.arm();
        timer.restart();
        controller.selectTask(id);
        settle(*store);
        paint.waitPainted();
        switchNs.append(timer.nsecsElapsed());
    }
    const qint64 rss = rssKiB("VmRSS");
    const qint64 hwm = rssKiB("VmHWM");

    QTextStream out(stdout);
    out << "kmosaic_workbench_bench " << path << " (" << tasks << " tasks)\n" << machineLine() << "\n\n";
    const auto pass = [](double v, double limit, const char* what) {
        return QStringLiteral("%1 < %2: %3")
            .arg(QLatin1String(what))
            .arg(limit)
            .arg(v < limit ? QStringLiteral("PASS") : QStringLiteral("FAIL"));
    };
    printTable(
        out, {QStringLiteral("metric"), QStringLiteral("value"), QStringLiteral("target")},
        {{QStringLiteral("open store, build window, first paint of the list"),
          num(ms(firstPaintNs), 0) + QStringLiteral(" ms"), pass(ms(firstPaintNs), 1000, "ms")},
         {QStringLiteral("same, from main() (QApplication start included)"),
          num(ms(fromMainNs), 0) + QStringLiteral(" ms"),
          {}},
         {QStringLiteral("search change, median / p95 of %1").arg(searchNs.size()),
          QStringLiteral("%1 / %2 ms").arg(num(median(searchNs), 1), num(percentile(searchNs, 0.95), 1)),
          pass(percentile(searchNs, 0.95), 50, "p95 ms")},
         {QStringLiteral("filter change, median / p95 of %1").arg(facetNs.size()),
          QStringLiteral("%1 / %2 ms").arg(num(median(facetNs), 1), num(percentile(facetNs, 0.95), 1)),
          pass(percentile(facetNs, 0.95), 50, "p95 ms")},
         {QStringLiteral("switch task, median / p95 of %1").arg(switchNs.size()),
          QStringLiteral("%1 / %2 ms").arg(num(median(switchNs), 1), num(percentile(switchNs, 0.95), 1)),
          pass(percentile(switchNs, 0.95), 30, "p95 ms")},
         {QStringLiteral("resident memory now / peak"), QStringLiteral("%1 / %2 MiB").arg(rss / 1024).arg(hwm / 1024),
          pass(double(hwm) / 1024, 300, "peak MiB")},
         {QStringLiteral("resident memory before the store was opened"),
          QStringLiteral("%1 MiB").arg(rssBefore / 1024),
          {}}});
    return 0;
}
