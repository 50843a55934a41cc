// `kmosaic solutions list / show / review / history` through the real binary and store. With the harness (on the
// CPU): two verified solutions, one passing and one wrong; accepting the wrong one is refused with its status
// named, the passing one too (not measured on a GPU) until --override with a comment; the queue and history say
// so. On a store with the shipped H200 demonstrations and verdicts recorded by the test: every gate rule refused
// by name, the queue's filters and columns, show; bad usage exits 2 and creates no store.
#include "../common/CliRun.h"
#include "../common/HonestLeakyRelu.h"
#include "../common/SolutionFixture.h"
#include "util/Json.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

namespace {
using km::test::Run;

Run kmosaic(const QStringList& args)
{
    return km::test::runKmosaic(args, 300000);
}

QList<QVariantMap> jsonLines(const QString& text)
{
    QList<QVariantMap> out;
    for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        out.append(km::json::parse(line.toUtf8(), nullptr).value_or(QVariant()).toMap());
    return out;
}
}  // namespace

class TestSolutionsCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("store.sqlite"));
        const Run r = kmosaic({"--db", m_db, "import", QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QList<std::pair<const char*, const char*>> files{
            {"good.py", "        return _ext.leaky_relu_forward(x.contiguous(), self.negative_slope)\n"},
            {"wrong.py", "        return _ext.leaky_relu_forward(x.contiguous(), 0.5)\n"}};
        for (const auto& [name, body] : files) {
            QFile f(m_dir.filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                km::test::honestLeakyRelu(QStringLiteral("    def forward(self, x):\n"), {}, QString::fromLatin1(body))
                    .toUtf8());
            f.close();
            const Run v =
                kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution", f.fileName(), "--device", "cpu",
                         "--seeds", "1", "--quiet", "--build-cache", QStringLiteral(KMOSAIC_VERIFY_BUILD_CACHE)});
            QVERIFY2(v.code == 0 || v.code == 3, qPrintable(v.err));
        }
    }

    void theQueueShowsEachSolutionsLatestVerdict()
    {
        const Run r = kmosaic({"--db", m_db, "solutions", "list", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto rows = jsonLines(r.out);
        QCOMPARE(rows.size(), 2);
        for (const QVariantMap& row : rows) {
            QCOMPARE(row.value("task_id").toString(), QStringLiteral("leaky-relu"));
            QCOMPARE(row.value("review_status").toString(), QStringLiteral("draft"));
            QCOMPARE(row.value("verdicts").toInt(), 1);
            if (row.value("latest_status") == "PASSED")
                m_good = row.value("id").toLongLong();
            else
                m_wrong = row.value("id").toLongLong();
        }
        QVERIFY(m_good > 0 && m_wrong > 0);
        QVERIFY(kmosaic({"--db", m_db, "solutions", "list"}).out.contains(QLatin1String("INCORRECT_NUMERICAL")));
    }

    void acceptingNeedsAPassingVerdict()
    {
        const Run refused = kmosaic({"--db", m_db, "solutions", "review", QString::number(m_wrong), "--status",
                                     "accepted", "--reviewer", "ana"});
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.contains(QLatin1String("latest verdict is INCORRECT_NUMERICAL")), qPrintable(refused.err));

        const Run rejected =
            kmosaic({"--db", m_db, "solutions", "review", QString::number(m_wrong), "--status", "rejected", "--reason",
                     "R2", "--comment", "slope hard-coded", "--reviewer", "ana"});
        QVERIFY2(rejected.code == 0, qPrintable(rejected.err));
        QCOMPARE(rejected.out.trimmed(),
                 QStringLiteral("solution %1 (leaky-relu): draft -> rejected by ana").arg(m_wrong));

        // Passed, but on the CPU: the gate says so; an override needs words and names the rule it passes.
        const Run onCpu =
            kmosaic({"--db", m_db, "solutions", "review", QString::number(m_good), "--status", "accepted"});
        QCOMPARE(onCpu.code, 1);
        QVERIFY2(onCpu.err.contains(QLatin1String("not on a GPU")), qPrintable(onCpu.err));
        const Run wordless = kmosaic(
            {"--db", m_db, "solutions", "review", QString::number(m_good), "--status", "accepted", "--override"});
        QCOMPARE(wordless.code, 2);
        QVERIFY2(wordless.err.contains(QLatin1String("--override needs a written reason")), qPrintable(wordless.err));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KMOSAIC_REVIEWER"), QStringLiteral("bo"));
        const Run accepted = km::test::runKmosaic({"--db", m_db, "solutions", "review", QString::number(m_good),
                                                   "--status", "accepted", "--override", "--comment", "exact on cpu"},
                                                  60000, env);
        QVERIFY2(accepted.code == 0, qPrintable(accepted.err));
        QVERIFY(accepted.out.contains(QLatin1String("draft -> accepted by bo")));
        QVERIFY2(accepted.out.contains(QLatin1String("overrode the acceptance gate:\n  gpu: ")),
                 qPrintable(accepted.out));
        const Run goodHistory = kmosaic({"--db", m_db, "solutions", "history", QString::number(m_good), "--json"});
        QCOMPARE(jsonLines(goodHistory.out).first().value("override").toStringList(), QStringList{"gpu"});

        const Run history = kmosaic({"--db", m_db, "solutions", "history", QString::number(m_wrong), "--json"});
        QVERIFY2(history.code == 0, qPrintable(history.err));
        const auto decisions = jsonLines(history.out);
        QCOMPARE(decisions.size(), 1);
        QCOMPARE(decisions.first().value("comment").toString(), QStringLiteral("slope hard-coded"));
        const Run accepted2 = kmosaic({"--db", m_db, "solutions", "list", "--status", "accepted", "--json"});
        QCOMPARE(jsonLines(accepted2.out).size(), 1);
        QCOMPARE(jsonLines(accepted2.out).first().value("id").toLongLong(), m_good);
    }

    void badUsageExitsTwoAndOpensNoStore()
    {
        const QString fresh = m_dir.filePath(QStringLiteral("never-created.sqlite"));
        for (const QStringList& args :
             {QStringList{"solutions", "review", "1", "--status", "great"},
              QStringList{"solutions", "review", "abc", "--status", "accepted"}, QStringList{"solutions", "history"},
              QStringList{"solutions", "list", "--limit", "0"}, QStringList{"solutions", "frobnicate"},
              QStringList{"solutions", "list", "--verdict", "GREAT"}, QStringList{"solutions", "list", "--origin", "x"},
              QStringList{"solutions", "show"}, QStringList{"solutions", "show", "1", "2"},
              QStringList{"solutions", "review", "1", "--status", "rejected", "--override", "--comment", "c"},
              QStringList{"solutions", "review", "1", "--status", "accepted", "--override", "--reason", " "}}) {
            const Run r = kmosaic(QStringList{"--db", fresh} + args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY(!r.err.isEmpty());
            QVERIFY(!QFile::exists(fresh));
        }
        const Run unknown = kmosaic({"--db", m_db, "solutions", "review", "4242", "--status", "rejected"});
        QCOMPARE(unknown.code, 1);
        QVERIFY(unknown.err.contains(QLatin1String("no solution with id 4242")));
        const Run unknownShow = kmosaic({"--db", m_db, "solutions", "show", "4242"});
        QCOMPARE(unknownShow.code, 1);
        QVERIFY(unknownShow.err.contains(QLatin1String("no solution with id 4242")));
        const Run help = kmosaic({"solutions", "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY(help.out.contains(QLatin1String("solutions review ID")));
    }

    // The demonstrations and verdicts recorded here (no harness): each rule of the gate from the command line.
    void theGateFromTheCommandLine()
    {
        auto store = km::test::solutionStore(m_dir, QStringLiteral("gate.sqlite"));
        QVERIFY(store);
        const qint64 gpu = km::test::recordSolution(*store, QStringLiteral("gpu"), km::test::gpuPassedVerdict(2.5));
        const qint64 cpu = km::test::recordSolution(*store, QStringLiteral("cpu"), km::test::cpuPassedVerdict());
        const qint64 old = km::test::recordSolution(*store, QStringLiteral("old"), km::test::oldHarnessVerdict());
        const qint64 hack = km::test::recordSolution(*store, QStringLiteral("hack"), km::test::errorFindingVerdict(),
                                                     QStringLiteral("import"));
        const qint64 bare = km::VerdictStore(store->database())
                                .addSolution(QStringLiteral("leaky-relu"), QStringLiteral("bare"),
                                             QStringLiteral("manual"), QStringLiteral("t"))
                                ->id;
        QVERIFY(gpu && cpu && old && hack && bare);
        const QString db = store->path();
        store.reset();

        const Run list = kmosaic({"--db", db, "solutions", "list", "--task", "leaky-relu", "--json"});
        QVERIFY2(list.code == 0, qPrintable(list.err));
        QMap<qint64, QVariantMap> rows;
        for (const QVariantMap& row : jsonLines(list.out))
            rows.insert(row.value("id").toLongLong(), row);
        QVERIFY(rows.contains(gpu) && rows.contains(bare));
        QCOMPARE(rows[gpu].value("gate_ok").toBool(), true);
        QCOMPARE(rows[gpu].value("gpu").toString(), QStringLiteral("NVIDIA H200"));
        QCOMPARE(rows[gpu].value("harness_version").toString(), km::harnessVersion());
        const QList<std::pair<qint64, QString>> unmet{
            {cpu, "gpu"}, {old, "harness"}, {hack, "findings"}, {bare, "verdict"}};
        for (const auto& [id, rule] : unmet) {
            QCOMPARE(rows[id].value("gate_ok").toBool(), false);
            QCOMPARE(rows[id].value("gate").toList().first().toMap().value("id").toString(), rule);
            const Run r = kmosaic(
                {"--db", db, "solutions", "review", QString::number(id), "--status", "accepted", "--reviewer", "ana"});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QLatin1String("cannot be accepted")), qPrintable(r.err));
        }
        const Run plain = kmosaic(
            {"--db", db, "solutions", "review", QString::number(gpu), "--status", "accepted", "--reviewer", "ana"});
        QVERIFY2(plain.code == 0, qPrintable(plain.err));
        QVERIFY(!plain.out.contains(QLatin1String("overrode")));
        const Run over = kmosaic({"--db", db, "solutions", "review", QString::number(old), "--status", "accepted",
                                  "--override", "--reason", "harness 1.0 changed only the report", "--reviewer", "cy"});
        QVERIFY2(over.code == 0, qPrintable(over.err));
        QVERIFY(over.out.contains(QLatin1String("  harness: its latest verdict is by harness 0.9.0")));

        // Filters: origin, latest verdict, reviewer; the table names GPU and gate.
        const Run imports = kmosaic({"--db", db, "solutions", "list", "--origin", "import", "--json"});
        QCOMPARE(jsonLines(imports.out).size(), 1);
        QCOMPARE(jsonLines(imports.out).first().value("id").toLongLong(), hack);
        const Run unverified = kmosaic({"--db", db, "solutions", "list", "--verdict", "NONE", "--json"});
        QCOMPARE(jsonLines(unverified.out).size(), 1);
        QCOMPARE(jsonLines(unverified.out).first().value("id").toLongLong(), bare);
        const Run compile = kmosaic({"--db", db, "solutions", "list", "--verdict", "COMPILE_ERROR", "--json"});
        QVERIFY(!jsonLines(compile.out).isEmpty());
        for (const QVariantMap& row : jsonLines(compile.out))
            QCOMPARE(row.value("latest_status").toString(), QStringLiteral("COMPILE_ERROR"));
        const Run byCy = kmosaic({"--db", db, "solutions", "list", "--reviewed-by", "cy", "--json"});
        QCOMPARE(jsonLines(byCy.out).size(), 1);
        QCOMPARE(jsonLines(byCy.out).first().value("last_reviewer").toString(), QStringLiteral("cy"));
        const Run table = kmosaic({"--db", db, "solutions", "list", "--task", "leaky-relu"});
        QVERIFY(table.out.contains(QLatin1String("GATE")) && table.out.contains(QLatin1String("NVIDIA H200")));

        // show: gate, verdicts, history (with the override), code.
        const Run show = kmosaic({"--db", db, "solutions", "show", QString::number(old)});
        QVERIFY2(show.code == 0, qPrintable(show.err));
        QVERIFY2(show.out.contains(QLatin1String("gate: not met")), qPrintable(show.out));
        QVERIFY(show.out.contains(QLatin1String("draft -> accepted (override: harness)")));
        QVERIFY(show.out.contains(QLatin1String("0.9.0")));
        QVERIFY(show.out.endsWith(QLatin1String("code:\nold\n")));
        const Run showJson = kmosaic({"--db", db, "solutions", "show", QString::number(gpu), "--json"});
        const QVariantMap detail = jsonLines(showJson.out).value(0);
        QCOMPARE(detail.value("code").toString(), QStringLiteral("gpu"));
        QCOMPARE(detail.value("gate_ok").toBool(), true);
        QCOMPARE(detail.value("verdicts").toList().size(), 1);
        QCOMPARE(detail.value("history").toList().size(), 1);
    }

private:
    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_good = 0;
    qint64 m_wrong = 0;
};

QTEST_GUILESS_MAIN(TestSolutionsCli)
#include "test_solutions_cli.moc"
