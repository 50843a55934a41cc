// `kmosaic verify` with API keys in its environment and a solution that hunts for them (its environment, every
// readable /proc/<pid>/environ): the keys appear nowhere, neither in the output, the store file nor the verdict.
#include "../common/CliRun.h"
#include "../common/LeakySolution.h"
#include "../common/StoreBytes.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {
using km::test::Run;
using km::test::storeBytes;

const QByteArray kKey = "sk-planted-verify-0123456789abcdef";
const QByteArray kCustomKey = "sk-planted-custom-9876543210";

}  // namespace

class TestVerifySecrets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keysNeverReachTheSolutionNorTheStore()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString db = dir.filePath(QStringLiteral("store.sqlite"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("OPENAI_API_KEY"), QString::fromLatin1(kKey));
        env.insert(QStringLiteral("MY_PROVIDER_KEY"), QString::fromLatin1(kCustomKey));
        const Run imported =
            km::test::runKmosaic({"--db", db, "import", QStringLiteral(KMOSAIC_TASKS_DIR "/leaky-relu")}, 60000, env);
        QVERIFY2(imported.code == 0, qPrintable(imported.err));

        const QString solution = dir.filePath(QStringLiteral("leaky.py"));
        QFile f(solution);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(km::test::leakySolution(QStringLiteral("'LEAKTEST'")).toUtf8());
        f.close();
        const Run r = km::test::runKmosaic(
            {"--db", db, "verify", "--task", "leaky-relu", "--solution", solution, "--device", "cpu", "--json"}, 240000,
            env);
        QCOMPARE(r.code, 3);
        QVERIFY2(r.out.contains(QLatin1String("RUNTIME_ERROR")), qPrintable(r.out + r.err));
        // The solution ran and reported what it saw: no key, yet what the harness needs.
        QVERIFY2(r.out.contains(QLatin1String("LEAKTEST OPENAI_API_KEY=<absent> MY_PROVIDER_KEY=<absent> found=[]")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("PATH=")), qPrintable(r.out));
        QVERIFY(!r.out.contains(QLatin1String("DBUS_SESSION_BUS_ADDRESS")));

        const QByteArray id = QByteArray::number(
            QJsonDocument::fromJson(r.out.trimmed().toUtf8()).object().value(QStringLiteral("id")).toInteger());
        const Run show =
            km::test::runKmosaic({"--db", db, "verdicts", "show", QString::fromLatin1(id), "--json"}, 60000, env);
        QCOMPARE(show.code, 0);
        QVERIFY2(show.out.contains(QLatin1String("LEAKTEST")), qPrintable(show.out));

        const QByteArray stored = storeBytes(db);
        QVERIFY(stored.contains("LEAKTEST"));
        for (const QByteArray& text : {(r.out + r.err).toUtf8(), (show.out + show.err).toUtf8(), stored}) {
            QVERIFY2(!text.contains("sk-planted"), text.constData());
            QVERIFY(!text.contains(kKey.toBase64()));
        }
    }
};

QTEST_GUILESS_MAIN(TestVerifySecrets)
#include "test_verify_secrets.moc"
