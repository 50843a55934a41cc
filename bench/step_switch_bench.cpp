// The replay's step switch (issue 19: "switch step p95 < 30 ms"), from the StepDetail arriving
// (TrajectoryView::setStep) to the current tab on screen: setStep, the events it posted (processEvents) and a
// repaint of the visible tab, for each tab being the current one (Conversation, Code, Diff side by side, Diff
// unified, Verdict, Step). The run: ~20 steps whose code is 50..2,000 lines (the replay store generator's kernel
// lines; each step an edit of the one before), whose reply holds the whole code in a fence, as the agent's do, and
// whose prompt (after the first) carries the code it asks to change, and whose verdicts are the shipped H200
// demonstrations' (real evidence, findings, diagnostics). Offscreen.
// Usage: QT_QPA_PLATFORM=offscreen kmosaic_step_switch_bench [--steps N] [--passes N] [--only TAB]
#include "BenchSupport.h"
#include "ReplayStoreGenerator.h"
#include "agent/TrajectoryBundle.h"
#include "replay/DiffView.h"
#include "replay/StepView.h"
#include "replay/TrajectoryView.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <cmath>

using namespace km;

namespace {

// Step i's code: the first `lines` lines of one generated solution with about one line in ten rewritten (the
// rewrites differ per step), so consecutive steps share most lines, as an agent's edits do.
QString stepCode(int lines, int step)
{
    const QStringList base = bench::generatedCode(lines, 7).split(QLatin1Char('\n'));
    QRandomGenerator rng(quint32(1000 + step));
    QStringList out;
    for (const QString& l : base) {
        const int roll = int(rng.bounded(100));
        if (roll < 4)
            out << QString(l).replace(QLatin1String("float"), QLatin1String("half"));
        else if (roll < 7)
            out << l << QStringLiteral("    // step %1: tuned").arg(step);
        else if (roll < 9)
            continue;
        else
            out << l;
    }
    return out.join(QLatin1Char('\n'));
}

QList<BundledStep> demonstrationSteps()
{
    QFile f(QStringLiteral(KMOSAIC_SOURCE_DIR "/resources/trajectories/h200-manual-demonstrations.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the shipped demonstrations");
    const auto bundle = readTrajectoryBundle(f.readAll());
    if (!bundle)
        qFatal("the shipped demonstrations do not read: %s", qPrintable(bundle.error().message));
    QList<BundledStep> out;
    for (const BundledRun& r : bundle.value().runs)
        out << r.steps;
    return out;
}

struct Run {
    RunSummary summary;
    QList<StepSummary> steps;
    QList<StepDetail> details;
};

Run makeRun(int count)
{
    const QList<BundledStep> demos = demonstrationSteps();
    Run run;
    run.summary.id = 1;
    run.summary.taskId = QStringLiteral("bench-task");
    run.summary.taskTitle = QStringLiteral("Step switch bench");
    run.summary.replySource = QStringLiteral("manual folder");
    run.summary.steps = count;
    QString previous;
    for (int i = 0; i < count; ++i) {
        // 50..2,000 lines, log-spaced, with the long ones every third step so each tab meets several
        const int lines = i % 3 == 2 ? 2000 : int(std::lround(50.0 * std::pow(40.0, double(i) / (count - 1))));
        const BundledStep& demo = demos[i % demos.size()];
        StepDetail d;
        d.step = demo.step;
        d.step.id = 100 + i;
        d.step.runId = 1;
        d.step.idx = i;
        d.step.code = stepCode(lines, i);
        d.step.reply =
            QStringLiteral("Here is the kernel, with the launch tuned.\n\n```python\n%1\n```\n\nIt keeps the "
                           "reference's dtype and shape.\n")
                .arg(d.step.code);
        if (i > 0)  // a repair or optimise prompt carries the solution it asks to change, as the agent's do
            d.step.prompt = QStringLiteral("%1\n\n## Your current solution\n\n```python\n%2\n```\n")
                                .arg(demo.step.prompt, previous);
        d.verdict = demo.verdict;  // its diagnostics' lines exist in every step's code (50 lines or more)
        d.previousCode = previous;
        previous = d.step.code;
        StepSummary s;
        s.id = d.step.id;
        s.runId = 1;
        s.idx = i;
        s.stage = d.step.stage;
        s.status = d.step.status;
        s.speedup = d.step.speedup;
        s.verdictId = d.verdict ? s.id : 0;
        s.codeLines = lines;
        run.steps << s;
        run.details << d;
    }
    return run;
}

struct Case {
    QString name;
    replay::StepView::Tab tab;
    replay::DiffView::Mode mode;
};

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.addOption({QStringLiteral("steps"), QStringLiteral("Steps in the run (default 20)."), QStringLiteral("N"),
                 QStringLiteral("20")});
    p.addOption({QStringLiteral("passes"), QStringLiteral("Passes over the steps per tab (default 3)."),
                 QStringLiteral("N"), QStringLiteral("3")});
    p.addOption({QStringLiteral("only"), QStringLiteral("Measure only the tab whose name starts so (for a profiler)."),
                 QStringLiteral("NAME")});
    p.addHelpOption();
    p.process(app);
    const int count = qMax(2, p.value(QStringLiteral("steps")).toInt());
    const int passes = qMax(1, p.value(QStringLiteral("passes")).toInt());
    const Run run = makeRun(count);

    replay::TrajectoryView view;
    view.resize(1400, 1000);
    view.show();
    QCoreApplication::processEvents();
    view.setRun(run.summary, run.steps);
    replay::StepView* steps = view.stepView();

    using Tab = replay::StepView::Tab;
    using Mode = replay::DiffView::Mode;
    const QList<Case> cases = {
        {QStringLiteral("Conversation"), Tab::ConversationTab, Mode::SideBySide},
        {QStringLiteral("Code"), Tab::CodeTab, Mode::SideBySide},
        {QStringLiteral("Diff, side by side"), Tab::DiffTab, Mode::SideBySide},
        {QStringLiteral("Diff, unified"), Tab::DiffTab, Mode::Unified},
        {QStringLiteral("Verdict"), Tab::VerdictTab, Mode::SideBySide},
        {QStringLiteral("Step"), Tab::StepTab, Mode::SideBySide},
    };
    QList<bench::Row> rows;
    QList<qint64> all;
    QStringList tabOpened;
    for (const Case& c : cases) {
        if (!c.name.startsWith(p.value(QStringLiteral("only")), Qt::CaseInsensitive))
            continue;
        steps->setCurrentIndex(c.tab);
        steps->diffView()->setMode(c.mode);
        view.setStep(run.details.constLast());  // the tab shown once before timing: its first layout
        QCoreApplication::processEvents();
        QList<qint64> setStep, total;
        for (int pass = 0; pass < passes; ++pass)
            for (const StepDetail& d : run.details) {
                QElapsedTimer t;
                t.start();
                view.setStep(d);
                setStep << t.nsecsElapsed();
                QCoreApplication::processEvents();
                steps->currentWidget()->repaint();
                total << t.nsecsElapsed();
            }
        // The tab opened after a step switch on another tab (the Step tab): it is filled then, when shown.
        QList<qint64> opened;
        for (const StepDetail& d : run.details) {
            steps->setCurrentIndex(Tab::StepTab);
            view.setStep(d);
            QCoreApplication::processEvents();
            QElapsedTimer t;
            t.start();
            steps->setCurrentIndex(c.tab);
            QCoreApplication::processEvents();
            steps->currentWidget()->repaint();
            opened << t.nsecsElapsed();
        }
        steps->setCurrentIndex(c.tab);
        tabOpened << QStringLiteral("%1 / %2 / %3")
                         .arg(bench::num(bench::percentile(opened, 0.5), 1),
                              bench::num(bench::percentile(opened, 0.95), 1),
                              bench::num(bench::percentile(opened, 1.0), 1));
        all << total;
        rows.append(
            {c.name,
             QStringLiteral("%1 / %2 / %3")
                 .arg(bench::num(bench::percentile(setStep, 0.5), 1), bench::num(bench::percentile(setStep, 0.95), 1),
                      bench::num(bench::percentile(setStep, 1.0), 1)),
             QStringLiteral("%1 / %2 / %3")
                 .arg(bench::num(bench::percentile(total, 0.5), 1), bench::num(bench::percentile(total, 0.95), 1),
                      bench::num(bench::percentile(total, 1.0), 1))});
    }

    QTextStream out(stdout);
    out << bench::machineLine() << "\n";
    qint64 chars = 0;
    for (const StepDetail& d : run.details)
        chars += d.step.code.size();
    out << QStringLiteral("%1 steps of 50..2,000 lines (%2 characters of code in all), %3 passes per tab; "
                          "verdicts from the shipped H200 demonstrations\n\n")
               .arg(count)
               .arg(chars)
               .arg(passes);
    out << "| current tab | setStep p50 / p95 / max ms | on screen p50 / p95 / max ms | target | tab opened after "
           "the switch, p50 / p95 / max ms |\n";
    out << "|---|---:|---:|---|---:|\n";
    for (qsizetype i = 0; i < rows.size(); ++i)
        out << "| " << rows[i].metric << " | " << rows[i].value << " | " << rows[i].target << " | p95 < 30 ms | "
            << tabOpened[i] << " |\n";
    out << "| every tab | | " << bench::num(bench::percentile(all, 0.5), 1) << " / "
        << bench::num(bench::percentile(all, 0.95), 1) << " / " << bench::num(bench::percentile(all, 1.0), 1)
        << " | p95 < 30 ms | |\n";
    return 0;
}
