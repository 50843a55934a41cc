// `kmosaic verify` end to end through the real binary, store and harness: a verdict is printed, stored with its
// solution, listed and shown; a batch runs through one worker; bad usage and missing files get clear errors.

#include "../common/CliRun.h"
#include "util/Json.h"

#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <unistd.h>

namespace {
using km::test::Run;

Run kmosaic(const QStringList& args)
{
    return km::test::runKmosaic(args, 240000);
}

const QString kCorpus = QStringLiteral(KMOSAIC_TEST_SOURCE_DIR "/verify/corpus");

QVariantMap jsonLine(const QString& line)
{
    km::json::ParseError pe;
    return km::json::parse(line.toUtf8(), &pe).value_or(QVariant()).toMap();
}
}  // namespace

class TestVerifyCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("store.sqlite"));
        for (const char* id : {"leaky-relu", "silu"}) {
            const Run r = kmosaic({"--db", m_db, "import", QStringLiteral(KMOSAIC_TASKS_DIR "/") + id});
            QVERIFY2(r.code == 0, qPrintable(r.err));
        }
    }

    void verdictIsPrintedStoredListedAndShown()
    {
        const Run r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution",
                               kCorpus + "/tricks/try_fallback.py", "--json", "--quiet"});
        QCOMPARE(r.code, 3);  // a verdict other than PASSED
        const QVariantMap v = jsonLine(r.out.trimmed());
        QCOMPARE(v.value("status").toString(), QStringLiteral("REWARD_HACK"));
        QVERIFY(v.value("id").toLongLong() > 0);
        QVERIFY(v.value("isolation").toString().contains(QLatin1String("filesystem")));
        bool staticFinding = false;
        for (const QVariant& f : v.value("findings").toList())
            staticFinding |= f.toMap().value("check").toString() == QLatin1String("static.try_fallback");
        QVERIFY(staticFinding);

        const Run list = kmosaic({"--db", m_db, "verdicts", "list", "--task", "leaky-relu"});
        QCOMPARE(list.code, 0);
        QVERIFY2(list.out.contains(QLatin1String("REWARD_HACK")), qPrintable(list.out));
        const Run show = kmosaic({"--db", m_db, "verdicts", "show", v.value("id").toString()});
        QCOMPARE(show.code, 0);
        QVERIFY2(show.out.contains(QLatin1String("static.try_fallback")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("isolation:")), qPrintable(show.out));

        // The same code again is the same stored solution with a second verdict.
        const Run again = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution",
                                   kCorpus + "/tricks/try_fallback.py", "--json", "--quiet"});
        QCOMPARE(jsonLine(again.out.trimmed()).value("solution_id"), v.value("solution_id"));
    }

    void batchRunsThroughOneWorker()
    {
        QFile batch(m_dir.filePath(QStringLiteral("batch.json")));
        QVERIFY(batch.open(QIODevice::WriteOnly));
        batch.write(QStringLiteral(R"([{"task": "silu", "file": "%1/malformed/segfault.py"},
                                       {"task": "silu", "file": "%1/tricks/thread_obfuscated.py"},
                                       {"task": "leaky-relu", "file": "%1/malformed/wrong_shape.py"}])")
                        .arg(kCorpus)
                        .toUtf8());
        batch.close();
        const Run r = kmosaic({"--db", m_db, "verify", "--batch", batch.fileName(), "--json", "--quiet"});
        QCOMPARE(r.code, 3);
        const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        const QStringList expected{"RUNTIME_ERROR", "REWARD_HACK", "INCORRECT_SHAPE"};
        QSet<qint64> workers;
        for (int i = 0; i < 3; ++i) {
            const QVariantMap v = jsonLine(lines[i]);
            QCOMPARE(v.value("status").toString(), expected[i]);
            workers.insert(v.value("environment").toMap().value("worker_pid").toLongLong());
        }
        QCOMPARE(workers.size(), 1);  // the segfault cost one child, not the worker
    }

    void batchFromAFolderAndFromJsonLines()
    {
        // A folder of solutions, each in a folder named after its task, with builds run ahead by a second process.
        const QString folder = m_dir.filePath(QStringLiteral("folder"));
        QVERIFY(QDir().mkpath(folder + QStringLiteral("/silu")));
        QVERIFY(QFile::copy(kCorpus + "/malformed/syntax_error.py", folder + QStringLiteral("/silu/a.py")));
        QVERIFY(QFile::copy(kCorpus + "/malformed/no_modelnew.py", folder + QStringLiteral("/silu/b.py")));
        Run r = kmosaic({"--db", m_db, "verify", "--batch", folder, "--json", "--build-jobs", "1"});
        QCOMPARE(r.code, 3);
        QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 2);
        QCOMPARE(jsonLine(lines[0]).value("status").toString(), QStringLiteral("COMPILE_ERROR"));
        QCOMPARE(jsonLine(lines[1]).value("task_id").toString(), QStringLiteral("silu"));
        QVERIFY2(r.err.contains(QLatin1String("[2/2] 100% |####################|")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("2 verified in")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("builds ahead:")), qPrintable(r.err));

        // JSONL with inline code; entries without a task take --task.
        QFile jsonl(m_dir.filePath(QStringLiteral("batch.jsonl")));
        QVERIFY(jsonl.open(QIODevice::WriteOnly));
        jsonl.write("{\"code\": \"import torch\\nx = (\\n\"}\n");
        jsonl.close();
        r = kmosaic({"--db", m_db, "verify", "--batch", jsonl.fileName(), "--task", "leaky-relu", "--json", "--quiet"});
        QCOMPARE(r.code, 3);
        const QVariantMap v = jsonLine(r.out.trimmed());
        QCOMPARE(v.value("status").toString(), QStringLiteral("COMPILE_ERROR"));
        QCOMPARE(v.value("task_id").toString(), QStringLiteral("leaky-relu"));
        const Run list = kmosaic({"--db", m_db, "verdicts", "list", "--task", "leaky-relu"});
        QVERIFY2(list.out.contains(QLatin1String("COMPILE_ERROR")), qPrintable(list.out));
    }

    void solutionCannotWriteOutsideItsScratch()
    {
        QFile::remove(QStringLiteral("/tmp/kmosaic-escape-marker"));
        const Run r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution",
                               kCorpus + "/escape/write_outside_scratch.py", "--json", "--quiet", "--build-cache",
                               QStringLiteral(KMOSAIC_VERIFY_BUILD_CACHE)});
        const QVariantMap v = jsonLine(r.out.trimmed());
        QVERIFY2(v.value("status").toString() == QLatin1String("PASSED"), qPrintable(r.out + r.err));
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/kmosaic-escape-marker")));
        // A CPU verdict says which checks it could not run, in the stored evidence and in the text.
        const QVariantList notRun = v.value("evidence").toMap().value("checks_not_run").toList();
        QVERIFY2(!notRun.isEmpty() && notRun.first().toMap().value("name") == "runtime.library_only",
                 qPrintable(r.out));
        const Run shown = kmosaic({"--db", m_db, "verdicts", "show", v.value("id").toString()});
        QVERIFY2(shown.out.contains(QLatin1String("not run on the cpu:\n  runtime.library_only: ")),
                 qPrintable(shown.out));
        const QString isolation = v.value("isolation").toString();
        QVERIFY2(isolation.contains(QLatin1String("filesystem: read-only except scratch")), qPrintable(isolation));
        QProcess probe;
        QStringList args{QStringLiteral("--net")};
        if (geteuid() != 0)
            args << QStringLiteral("--user") << QStringLiteral("--map-root-user");
        probe.start(QStringLiteral("unshare"), args << QStringLiteral("--") << QStringLiteral("true"));
        if (!probe.waitForFinished(10000) || probe.exitCode() != 0)
            QSKIP("unshare --net does not work here; the verdict says so instead");
        QVERIFY2(isolation.contains(QLatin1String("network: netns (loopback only)")), qPrintable(isolation));
    }

    void aPoolServesManyCommandsWithOneWorker()
    {
        const QString socket = m_dir.filePath(QStringLiteral("pool.sock"));
        QProcess pool;
        pool.start(QStringLiteral(KMOSAIC_CLI), {"--db", m_db, "pool", "serve", "--socket", socket});
        QVERIFY(pool.waitForReadyRead(60000));
        QVERIFY2(pool.readLine().contains("listening on"), "the pool did not say where it listens");
        // Its worker imports torch before any client asks, and the pool says when that is done.
        QByteArray said;
        while (!said.contains("1 of 1 worker(s) ready") && pool.waitForReadyRead(120000))
            said += pool.readAll();
        QVERIFY2(said.contains("kmosaic pool: 1 of 1 worker(s) ready"), said.constData());
        QSet<qint64> workers;
        for (int i = 0; i < 2; ++i) {
            const Run r = kmosaic({"--db", m_db, "verify", "--pool", socket, "--task", "leaky-relu", "--solution",
                                   kCorpus + "/tricks/try_fallback.py", "--json", "--quiet"});
            const QVariantMap v = jsonLine(r.out.trimmed());
            QVERIFY2(v.value("status").toString() == QLatin1String("REWARD_HACK"), qPrintable(r.out + r.err));
            QCOMPARE(r.code, 3);  // a verdict other than PASSED, and a clean exit
            QCOMPARE(v.value("executor").toString(), QStringLiteral("local (pool)"));
            workers.insert(v.value("environment").toMap().value("worker_pid").toLongLong());
        }
        QCOMPARE(workers.size(), 1);  // both commands were served by the pool's one warm worker
        Run r = kmosaic({"--db", m_db, "pool", "status", "--socket", socket, "--stop"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QLatin1String("\"served\":2")), qPrintable(r.out));
        QVERIFY(pool.waitForFinished(30000));
        QCOMPARE(pool.exitCode(), 0);
        QVERIFY2(pool.readAllStandardOutput().contains("stopped after 2 verification(s)"), "no goodbye");

        r = kmosaic({"--db", m_db, "verify", "--pool", socket, "--task", "leaky-relu", "--solution",
                     kCorpus + "/tricks/try_fallback.py"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String("kmosaic pool serve")), qPrintable(r.err));
    }

    void aKilledWorkerLeavesNoScratchFolder()
    {
        // The pool's worker is killed (as a cancel, a hung request or a crash does); its replacement serves on, and
        // once the pool stops no worker folder is left in the temporary folder.
        QTemporaryDir tmp;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TMPDIR"), tmp.path());
        const QString socket = m_dir.filePath(QStringLiteral("pool-k.sock"));
        QProcess pool;
        pool.setProcessEnvironment(env);
        pool.start(QStringLiteral(KMOSAIC_CLI), {"--db", m_db, "pool", "serve", "--socket", socket});
        QByteArray said;
        while (!said.contains("worker(s) ready") && pool.waitForReadyRead(120000))
            said += pool.readAll();
        QVERIFY2(said.contains("worker(s) ready"), said.constData());
        const QStringList verify{"--db",       m_db,         "verify",
                                 "--pool",     socket,       "--task",
                                 "leaky-relu", "--solution", kCorpus + "/malformed/wrong_shape.py",
                                 "--json",     "--quiet"};
        Run r = km::test::runKmosaic(verify, 120000, env);
        const qint64 first = jsonLine(r.out.trimmed()).value("environment").toMap().value("worker_pid").toLongLong();
        QVERIFY2(first > 0, qPrintable(r.out + r.err));
        const QStringList folders = QDir(tmp.path()).entryList({"kmosaic-worker-*"}, QDir::Dirs);
        QCOMPARE(folders.size(), 1);
        QCOMPARE(::kill(pid_t(first), SIGKILL), 0);
        r = km::test::runKmosaic(verify, 120000, env);
        const qint64 second = jsonLine(r.out.trimmed()).value("environment").toMap().value("worker_pid").toLongLong();
        QVERIFY2(second > 0 && second != first, qPrintable(r.out + r.err));
        QVERIFY2(!QDir(tmp.path()).exists(folders.first()), "the killed worker's folder is still there");
        r = kmosaic({"--db", m_db, "pool", "status", "--socket", socket, "--stop"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY(pool.waitForFinished(30000));
        QCOMPARE(QDir(tmp.path()).entryList({"kmosaic-worker-*"}, QDir::Dirs), QStringList());
    }

    void gpusAreListedAndABatchSpreadsOverThem()
    {
        // nvidia-smi is stood in for by a script printing the hand-written eight-GPU fixture; the workers verify on
        // the CPU (--device cpu), one per chosen "GPU", each pinned to it through CUDA_VISIBLE_DEVICES.
        const QString smi = m_dir.filePath(QStringLiteral("nvidia-smi"));
        QFile script(smi);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\ncat '" KMOSAIC_TEST_DATA "/nvidia-smi/query-gpu-8xh100-synthetic.csv'\n");
        script.close();
        script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KMOSAIC_NVIDIA_SMI"), smi);
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("3,1"));
        Run r = km::test::runKmosaic({"--db", m_db, "gpus", "--json"}, 60000, env);
        QCOMPARE(r.code, 0);
        const QStringList gpus = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(gpus.size(), 2);
        QCOMPARE(jsonLine(gpus[0]).value("index").toInt(), 3);
        QCOMPARE(jsonLine(gpus[1]).value("name").toString(), QStringLiteral("NVIDIA H100 80GB HBM3"));

        r = km::test::runKmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution",
                                  kCorpus + "/malformed/wrong_shape.py", "--gpus", "0", "--device", "cpu"},
                                 60000, env);
        QCOMPARE(r.code, 2);  // GPU 0 is hidden by CUDA_VISIBLE_DEVICES
        QVERIFY2(r.err.contains(QLatin1String("not the index of a visible GPU (visible: 3,1)")), qPrintable(r.err));

        QFile batch(m_dir.filePath(QStringLiteral("gpu-batch.json")));
        QVERIFY(batch.open(QIODevice::WriteOnly));
        batch.write(QStringLiteral(R"([{"task": "leaky-relu", "file": "%1/malformed/wrong_shape.py"},
                                       {"task": "leaky-relu", "file": "%1/tricks/try_fallback.py"},
                                       {"task": "leaky-relu", "file": "%1/malformed/wrong_shape.py"},
                                       {"task": "leaky-relu", "file": "%1/tricks/try_fallback.py"}])")
                        .arg(kCorpus)
                        .toUtf8());
        batch.close();
        r = km::test::runKmosaic({"--db", m_db, "verify", "--batch", batch.fileName(), "--gpus", "all", "--device",
                                  "cpu", "--build-jobs", "0", "--json"},
                                 480000, env);
        QCOMPARE(r.code, 3);
        const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 4);
        QSet<int> used;
        for (const QString& line : lines) {
            const QVariantMap v = jsonLine(line);
            const QVariantMap gpu = v.value("evidence").toMap().value("gpu").toMap();
            used.insert(gpu.value("index").toInt());
            QCOMPARE(v.value("environment").toMap().value("cuda_visible_devices").toString(),
                     gpu.value("uuid").toString());
            QCOMPARE(v.value("executor").toString(), QStringLiteral("local (2 GPUs)"));
        }
        QCOMPARE(used, (QSet<int>{3, 1}));
        QVERIFY2(r.err.contains(QLatin1String("the 2 GPUs measured during")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("GPU 3 (NVIDIA H100 80GB HBM3): ")), qPrintable(r.err));
        const Run show = kmosaic({"--db", m_db, "verdicts", "show", jsonLine(lines[0]).value("id").toString()});
        QVERIFY2(show.out.contains(QLatin1String("  gpu: GPU ")), qPrintable(show.out));

        env.insert(QStringLiteral("KMOSAIC_NVIDIA_SMI"), m_dir.filePath(QStringLiteral("no-such-nvidia-smi")));
        r = km::test::runKmosaic({"--db", m_db, "gpus"}, 60000, env);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String("could not be started")), qPrintable(r.err));
        env.insert(QStringLiteral("KMOSAIC_NVIDIA_SMI"), smi);
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QString());
        r = km::test::runKmosaic({"--db", m_db, "gpus"}, 60000, env);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String("no GPU is visible (CUDA_VISIBLE_DEVICES=)")), qPrintable(r.err));
    }

    void badInputGetsClearErrors()
    {
        Run r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QLatin1String("--solution")));
        r = kmosaic(
            {"--db", m_db, "verify", "--task", "no-such-task", "--solution", kCorpus + "/tricks/try_fallback.py"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String("no-such-task")), qPrintable(r.err));
        r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution", m_dir.filePath("missing.py")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String("does not exist")), qPrintable(r.err));
        r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution", kCorpus + "/tricks/try_fallback.py",
                     "--seeds", "0"});
        QCOMPARE(r.code, 2);
        r = kmosaic({"--db", m_db, "verify", "--batch", m_dir.filePath("missing.json")});
        QCOMPARE(r.code, 1);
        for (const char* n : {"0", "17", "two"}) {
            r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution",
                         kCorpus + "/tricks/try_fallback.py", "--workers-per-gpu", n});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(QLatin1String("--workers-per-gpu needs a whole number")), qPrintable(r.err));
        }
        r = kmosaic({"--db", m_db, "verify", "--task", "leaky-relu", "--solution", kCorpus + "/tricks/try_fallback.py",
                     "--workers-per-gpu", "2", "--pool", m_dir.filePath("no.sock")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QLatin1String("a pool has its own")), qPrintable(r.err));
        r = kmosaic({"--db", m_db, "pool", "serve", "--socket", m_dir.filePath("p.sock"), "--workers-per-gpu", "0"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QLatin1String("--workers-per-gpu needs a whole number from 1 to 16")),
                 qPrintable(r.err));
    }

private:
    QTemporaryDir m_dir;
    QString m_db;
};

QTEST_GUILESS_MAIN(TestVerifyCli)
#include "test_verify_cli.moc"
