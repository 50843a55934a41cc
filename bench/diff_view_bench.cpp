// The replay's diff of two solutions of 2,000 lines (issue 19: "diff of two 2,000-line solutions < 50 ms"): the
// line script (diffLines), the character spans of the changed pairs (changedSpans), unifiedDiff, and what the
// Diff tab does on a step switch (DiffView::setTexts: both editors, markers, indicators; then the first paint).
// Usage: kmosaic_diff_view_bench [--changed PERCENT] [--rounds N]
#include "BenchSupport.h"
#include "agent/TextDiff.h"
#include "replay/DiffView.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QRandomGenerator>

using namespace km;

namespace {
// A solution-like text: 2,000 lines drawn from 60 distinct ones (code repeats lines), with `changed` percent of
// the lines edited in the second version (a character or a word changed, some lines added or removed).
std::pair<QString, QString> texts(int lines, int changedPercent)
{
    QRandomGenerator rng(19);
    QStringList pool;
    for (int i = 0; i < 60; ++i)
        pool << QStringLiteral("    x%1 = torch.empty((n, %2), device=x.device, dtype=x.dtype)  # %3")
                    .arg(i)
                    .arg(i * 7)
                    .arg(i % 5);
    QStringList a, b;
    for (int i = 0; i < lines; ++i) {
        const QString l = pool[int(rng.bounded(60))];
        a << l;
        const int roll = int(rng.bounded(100));
        if (roll >= changedPercent)
            b << l;
        else if (roll % 4 == 0)
            continue;  // removed
        else if (roll % 4 == 1)
            b << l << QStringLiteral("    added_%1 = 0").arg(i);
        else
            b << QString(l)
                     .replace(QLatin1String("empty"), QLatin1String("zeros"))
                     .replace(QLatin1Char('7'), QLatin1Char('9'));
    }
    return {a.join(QLatin1Char('\n')) + QLatin1Char('\n'), b.join(QLatin1Char('\n')) + QLatin1Char('\n')};
}

template <class F> QList<qint64> time(int rounds, F&& f)
{
    QList<qint64> out;
    for (int r = 0; r < rounds; ++r) {
        QElapsedTimer t;
        t.start();
        f();
        out << t.nsecsElapsed();
    }
    return out;
}
}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.addOption({QStringLiteral("changed"), QStringLiteral("Percent of lines changed (default 20)."),
                 QStringLiteral("P"), QStringLiteral("20")});
    p.addOption({QStringLiteral("rounds"), QStringLiteral("Rounds per measurement (default 20)."), QStringLiteral("N"),
                 QStringLiteral("20")});
    p.addHelpOption();
    p.process(app);
    const int changed = p.value(QStringLiteral("changed")).toInt();
    const int rounds = qMax(1, p.value(QStringLiteral("rounds")).toInt());
    const auto [a, b] = texts(2000, changed);

    int pairs = 0;
    const QList<qint64> lines = time(rounds, [&] { pairs = int(diffLines(a, b).size()); });
    const QStringList la = a.split(QLatin1Char('\n')), lb = b.split(QLatin1Char('\n'));
    const QList<qint64> spans = time(rounds, [&] {
        for (int i = 0; i < qMin(la.size(), lb.size()); ++i)
            if (la[i] != lb[i])
                changedSpans(la[i], lb[i]);
    });
    const QList<qint64> unified = time(rounds, [&] { unifiedDiff(a, b); });
    replay::DiffView view;
    view.resize(1200, 800);
    view.show();
    QList<qint64> widget, paint;
    for (int r = 0; r < rounds; ++r) {
        QElapsedTimer t;
        t.start();
        view.setTexts(QStringLiteral("a"), a, QStringLiteral("b"), b);
        widget << t.nsecsElapsed();
        t.restart();
        view.repaint();  // the editors' first paint: styling and drawing what is visible
        QCoreApplication::processEvents();
        paint << t.nsecsElapsed();
    }
    QList<qint64> both;
    for (int r = 0; r < rounds; ++r)
        both << widget[r] + paint[r];

    QTextStream out(stdout);
    out << bench::machineLine() << "\n";
    out << QStringLiteral("2,000 lines, %1% changed, %2 script lines, %3 highlights, %4 rounds\n\n")
               .arg(changed)
               .arg(pairs)
               .arg(view.highlights().size())
               .arg(rounds);
    bench::printTable(
        out, {QStringLiteral("metric"), QStringLiteral("p95 ms"), QStringLiteral("target")},
        {{QStringLiteral("diffLines"), bench::num(bench::percentile(lines, 0.95), 2), QStringLiteral("< 50 ms")},
         {QStringLiteral("changedSpans (every changed pair)"), bench::num(bench::percentile(spans, 0.95), 2), {}},
         {QStringLiteral("unifiedDiff"), bench::num(bench::percentile(unified, 0.95), 2), QStringLiteral("< 50 ms")},
         {QStringLiteral("DiffView::setTexts"), bench::num(bench::percentile(widget, 0.95), 2), {}},
         {QStringLiteral("DiffView first paint"), bench::num(bench::percentile(paint, 0.95), 2), {}},
         {QStringLiteral("DiffView step switch (both)"), bench::num(bench::percentile(both, 0.95), 2),
          QStringLiteral("< 30 ms")}});
    return 0;
}
