// `kmosaic solutions list / review / history` through the real binary, store and harness (on the CPU): two
// verified solutions, one passing and one wrong; accepting the wrong one is refused with its status named, the
// passing one is accepted; the queue and history say so; bad usage exits 2 and creates no store.
#include "../common/CliRun.h"
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

const char* const kModel = "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                           "    def __init__(self, negative_slope):\n        super().__init__()\n"
                           "        self.negative_slope = negative_slope\n\n    def forward(self, x):\n";

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
            {"good.py", "        return torch.clamp(x, min=0) + self.negative_slope * torch.clamp(x, max=0)\n"},
            {"wrong.py", "        return torch.clamp(x, min=0) + 0.5 * torch.clamp(x, max=0)\n"}};
        for (const auto& [name, body] : files) {
            QFile f(m_dir.filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(kModel) + body);
            f.close();
            const Run v = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution", f.fileName(),
                                   "--device", "cpu", "--seeds", "1", "--quiet"});
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

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KMOSAIC_REVIEWER"), QStringLiteral("bo"));
        const Run accepted = km::test::runKmosaic(
            {"--db", m_db, "solutions", "review", QString::number(m_good), "--status", "accepted"}, 60000, env);
        QVERIFY2(accepted.code == 0, qPrintable(accepted.err));
        QVERIFY(accepted.out.contains(QLatin1String("draft -> accepted by bo")));

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
              QStringList{"solutions", "list", "--limit", "0"}, QStringList{"solutions", "frobnicate"}}) {
            const Run r = kmosaic(QStringList{"--db", fresh} + args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY(!r.err.isEmpty());
            QVERIFY(!QFile::exists(fresh));
        }
        const Run unknown = kmosaic({"--db", m_db, "solutions", "review", "4242", "--status", "rejected"});
        QCOMPARE(unknown.code, 1);
        QVERIFY(unknown.err.contains(QLatin1String("no solution with id 4242")));
        const Run help = kmosaic({"solutions", "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY(help.out.contains(QLatin1String("solutions review ID")));
    }

private:
    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_good = 0;
    qint64 m_wrong = 0;
};

QTEST_GUILESS_MAIN(TestSolutionsCli)
#include "test_solutions_cli.moc"
