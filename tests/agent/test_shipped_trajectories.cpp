// The trajectories that ship with the bundled data (resources/trajectories/): recorded on the H200 with the manual
// agent, labelled as team-authored demonstrations. They must import into a store holding the bundled tasks, and
// together show what the issue asks of them: a build error repaired, a wrong result repaired, a reply without code,
// optimisation steps that answered profiler figures with a faster kernel, every verdict measured on the GPU.
#include "../common/CliRun.h"
#include "util/Json.h"

#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

namespace {
const QString kBundle = QStringLiteral(KMOSAIC_SOURCE_DIR "/resources/trajectories/h200-manual-demonstrations.json");

km::test::Run kmosaic(const QStringList& args)
{
    return km::test::runKmosaic(args, 120000);
}

// Statuses of a run's steps, in order ("" for a step without a verdict).
QStringList statuses(const QVariantMap& run)
{
    QStringList out;
    for (const QVariant& s : run.value(QStringLiteral("steps")).toList())
        out << s.toMap().value(QStringLiteral("status")).toString();
    return out;
}

QVariantMap readBundle()
{
    QFile f(kBundle);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(kBundle));
    return km::json::parse(f.readAll(), nullptr).value_or(QVariant()).toMap();
}

bool repairs(const QStringList& steps, const QString& failure)
{
    const qsizetype at = steps.indexOf(failure);
    return at >= 0 && steps.indexOf(QStringLiteral("PASSED"), at + 1) > at;
}
}  // namespace

class TestShippedTrajectories : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyVerdictWasMeasuredOnTheH200()
    {
        const QVariantMap bundle = readBundle();
        QCOMPARE(bundle.value(QStringLiteral("format")).toString(), QStringLiteral("kmosaic-trajectories"));
        QCOMPARE(bundle.value(QStringLiteral("label")).toString(), QStringLiteral("team-authored demonstration"));
        int verdicts = 0;
        for (const QVariant& r : bundle.value(QStringLiteral("runs")).toList()) {
            QCOMPARE(r.toMap().value(QStringLiteral("kind")).toString(), QStringLiteral("manual"));
            for (const QVariant& s : r.toMap().value(QStringLiteral("steps")).toList()) {
                const QVariantMap v = s.toMap().value(QStringLiteral("verdict")).toMap();
                if (v.isEmpty())
                    continue;
                ++verdicts;
                const QVariantMap env = v.value(QStringLiteral("environment")).toMap();
                QVERIFY2(env.value(QStringLiteral("gpu"))
                             .toMap()
                             .value(QStringLiteral("name"))
                             .toString()
                             .contains(QStringLiteral("H200")),
                         qPrintable(km::json::write(env)));
            }
        }
        QVERIFY(verdicts >= 6);
    }

    // An optimisation step counts when its prompt carried the profiler's figures for the previous version and its
    // verdict passed faster than the best before it.
    void optimisationStepsAnsweredProfilerFigures()
    {
        int faster = 0;
        for (const QVariant& r : readBundle().value(QStringLiteral("runs")).toList()) {
            double best = 0.0;
            for (const QVariant& s : r.toMap().value(QStringLiteral("steps")).toList()) {
                const QVariantMap step = s.toMap();
                const double speedup = step.value(QStringLiteral("speedup")).toDouble();
                if (step.value(QStringLiteral("stage")).toString() == QLatin1String("optimise") &&
                    step.value(QStringLiteral("status")).toString() == QLatin1String("PASSED") &&
                    step.value(QStringLiteral("prompt")).toString().contains(QLatin1String("## Profiler figures")) &&
                    best > 0.0 && speedup > best)
                    ++faster;
                if (step.value(QStringLiteral("status")).toString() == QLatin1String("PASSED"))
                    best = qMax(best, speedup);
            }
        }
        QVERIFY2(faster >= 2, qPrintable(QString::number(faster)));
    }

    void importsAndCoversRepairs()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("store.sqlite"));
        QCOMPARE(kmosaic({"--db", db, "import", KMOSAIC_TASKS_DIR}).code, 0);
        const km::test::Run imported = kmosaic({"--db", db, "agent", "import", kBundle});
        QVERIFY2(imported.code == 0, qPrintable(imported.err + imported.out));
        const km::test::Run list = kmosaic({"--db", db, "agent", "list", "--json"});
        QCOMPARE(list.code, 0);
        QSet<QString> tasks;
        bool buildErrorRepaired = false, wrongResultRepaired = false, noCodeStep = false;
        const QStringList lines = list.out.trimmed().split(QLatin1Char('\n'));
        QVERIFY(lines.size() >= 6);
        for (const QString& line : lines) {
            const QString id =
                km::json::parse(line.toUtf8(), nullptr).value_or(QVariant()).toMap().value("id").toString();
            const km::test::Run show = kmosaic({"--db", db, "agent", "show", id, "--json"});
            QCOMPARE(show.code, 0);
            const QVariantMap run = km::json::parse(show.out.toUtf8(), nullptr).value_or(QVariant()).toMap();
            tasks << run.value(QStringLiteral("task_id")).toString();
            QCOMPARE(run.value("settings").toMap().value("provenance").toMap().value("label").toString(),
                     QStringLiteral("team-authored demonstration"));
            const QStringList s = statuses(run);
            buildErrorRepaired = buildErrorRepaired || repairs(s, QStringLiteral("COMPILE_ERROR"));
            wrongResultRepaired = wrongResultRepaired || repairs(s, QStringLiteral("INCORRECT_NUMERICAL"));
            for (const QVariant& step : run.value(QStringLiteral("steps")).toList())
                noCodeStep = noCodeStep || (step.toMap().value("code").toString().isEmpty() &&
                                            !step.toMap().value("error").toString().isEmpty());
        }
        QVERIFY(tasks.size() >= 6);
        QVERIFY(buildErrorRepaired);
        QVERIFY(wrongResultRepaired);
        QVERIFY(noCodeStep);
        const km::test::Run again = kmosaic({"--db", db, "agent", "import", kBundle});
        QCOMPARE(again.code, 0);
        QVERIFY2(again.out.contains(QStringLiteral("0 imported")), qPrintable(again.out));
    }
};

QTEST_GUILESS_MAIN(TestShippedTrajectories)
#include "test_shipped_trajectories.moc"
