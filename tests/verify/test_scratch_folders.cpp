// Scratch folders left by a killed owner are removed by the next one (ScratchFolders); a living owner's stay, and so
// do folders without an owner record. Sealed folders (mode 0311, as sandboxed children leave them) go too.

#include "verify/ScratchFolders.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

class TestScratchFolders : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void onlyFoldersOfDeadOwnersAreRemoved()
    {
        QTemporaryDir parent;
        QDir p(parent.path());
        for (const char* name : {"kmosaic-worker-dead", "kmosaic-worker-alive", "kmosaic-worker-unknown", "other-dead"})
            QVERIFY(p.mkpath(QString::fromLatin1(name) + QStringLiteral("/sol/sealed")));
        QVERIFY(km::markScratchOwner(p.filePath("kmosaic-worker-alive")));
        // An owner that has exited: a child of this test, reaped.
        const pid_t child = ::fork();
        if (child == 0) {
            km::markScratchOwner(p.filePath("kmosaic-worker-dead"));
            km::markScratchOwner(p.filePath("other-dead"));
            ::_exit(0);
        }
        QVERIFY(child > 0);
        ::waitpid(child, nullptr, 0);
        QFile f(p.filePath("kmosaic-worker-dead/sol/sealed/out.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        ::chmod(QFile::encodeName(p.filePath("kmosaic-worker-dead/sol")).constData(), 0311);

        QCOMPARE(km::removeAbandonedScratch(parent.path(), QStringLiteral("kmosaic-worker-*")), 1);
        QVERIFY(!p.exists("kmosaic-worker-dead"));
        QVERIFY(p.exists("kmosaic-worker-alive"));
        QVERIFY(p.exists("kmosaic-worker-unknown"));  // no record: not ours to judge
        QVERIFY(p.exists("other-dead"));              // another name
    }
};

QTEST_GUILESS_MAIN(TestScratchFolders)
#include "test_scratch_folders.moc"
