// Importers: folders, KernelBench checkouts and JSONL; idempotent, lossless, and never losing stored data on bad input.
#include "curate/Importer.h"
#include "curate/KernelBenchImporter.h"
#include "curate/OpCategories.h"
#include "store/TaskStore.h"

#include <QtTest>

using namespace km;

namespace {
const QString kData = QStringLiteral(KMOSAIC_TEST_DATA);

std::unique_ptr<TaskStore> openStore(const QString& path)
{
    auto s = TaskStore::open(path);
    if (!s)
        qFatal("cannot open store %s: %s", qPrintable(path), qPrintable(s.error().message));
    return std::move(s).value();
}

QStringList ids(TaskStore& store)
{
    QStringList out;
    for (const TaskSummary& s : store.summaries().value())
        out.append(s.id);
    return out;
}

QString issuesText(const QList<ImportIssue>& issues)
{
    QStringList l;
    for (const ImportIssue& i : issues)
        l.append(i.format());
    return l.join('\n');
}

const ImportIssue* findIssue(const QList<ImportIssue>& issues, const QString& fileEnd, const QString& reasonPart)
{
    for (const ImportIssue& i : issues)
        if (i.file.endsWith(fileEnd) && i.reason.contains(reasonPart))
            return &i;
    return nullptr;
}
}  // namespace

class TestImporters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void detectsFormats()
    {
        QVERIFY(detectFormat(kData + "/kernelbench").value() == TaskFormat::KernelBench);
        QVERIFY(detectFormat(kData + "/kernelbench/KernelBench").value() == TaskFormat::KernelBench);
        QVERIFY(detectFormat(kData + "/malformed.jsonl").value() == TaskFormat::Jsonl);
        QVERIFY(detectFormat(kData + "/malformed-tasks").value() == TaskFormat::Folder);
        QCOMPARE(detectFormat(kData + "/does-not-exist").error().code, ErrorCode::NotFound);
    }

    void kernelBenchFileNames_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("level");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("title");
        QTest::newRow("simple") << "19_ReLU.py" << 1 << "kb-l1-019-relu"
                                << "ReLU";
        QTest::newRow("trailing underscore")
            << "1_Square_matrix_multiplication_.py" << 1 << "kb-l1-001-square-matrix-multiplication"
            << "Square matrix multiplication";
        QTest::newRow("level 2") << "12_Conv2d_BatchNorm_ReLU.py" << 2 << "kb-l2-012-conv2d-batchnorm-relu"
                                 << "Conv2d BatchNorm ReLU";
        QTest::newRow("level 4: hyphens and a dot")
            << "1_EleutherAI-gpt-neo-2p7B_bs32_seq256.py" << 4 << "kb-l4-001-eleutherai-gpt-neo-2p7b-bs32-seq256"
            << "EleutherAI-gpt-neo-2p7B bs32 seq256";
        QTest::newRow("level 4: dotted size") << "2_acme-lm-0.5B_bs1_seq8.py" << 4 << "kb-l4-002-acme-lm-0-5b-bs1-seq8"
                                              << "acme-lm-0.5B bs1 seq8";
        QTest::newRow("name starting with a hyphen") << "3_-x.py" << 4 << ""
                                                     << "";
        QTest::newRow("no name") << "4_.py" << 1 << ""
                                 << "";
        QTest::newRow("not a problem") << "helper.py" << 1 << ""
                                       << "";
    }
    void kernelBenchFileNames()
    {
        QFETCH(QString, file);
        QFETCH(int, level);
        QFETCH(QString, id);
        QFETCH(QString, title);
        const auto n = parseKernelBenchFileName(file, level);
        QCOMPARE(n.has_value(), !id.isEmpty());
        if (n) {
            QCOMPARE(n->id, id);
            QCOMPARE(n->title, title);
        }
    }

    void derivesCategories_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("level");
        QTest::addColumn<QStringList>("expected");
        const QString head =
            "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x, w):\n";
        const QString tail = "\ndef get_inputs():\n    return [torch.randn(4).sum(dim=0)]\n";
        QTest::newRow("matmul") << head + "        return torch.matmul(x, w)" + tail << 1 << QStringList{"gemm"};
        QTest::newRow("bmm") << head + "        return torch.bmm(x, w)" + tail << 1 << QStringList{"batched-gemm"};
        QTest::newRow("relu") << head + "        return torch.relu(x)" + tail << 1 << QStringList{"activation"};
        QTest::newRow("softmax") << head + "        return torch.softmax(x, dim=-1)" + tail << 1
                                 << QStringList{"softmax"};
        QTest::newRow("cumsum") << head + "        return torch.cumsum(x, dim=1)" + tail << 1 << QStringList{"scan"};
        QTest::newRow("sum") << head + "        return torch.sum(x, dim=1)" + tail << 1 << QStringList{"reduction"};
        QTest::newRow("fused conv") << head + "        return torch.relu(nn.functional.conv2d(x, w))" + tail << 2
                                    << QStringList{"activation", "convolution", "fused"};
        QTest::newRow("comment ignored") << head +
                                                "        # torch.matmul would be slow\n        return x.clamp(min=0)" +
                                                tail
                                         << 1 << QStringList{"elementwise"};
        QTest::newRow("model") << head + "        return nn.LayerNorm(4)(x)" + tail << 3
                               << QStringList{"normalization", "model"};
    }
    void derivesCategories()
    {
        QFETCH(QString, code);
        QFETCH(int, level);
        QFETCH(QStringList, expected);
        QCOMPARE(deriveCategories(code, level), expected);
    }

    void importsKernelBenchCheckout()
    {
        QTemporaryDir dir;
        auto store = openStore(dir.filePath("s.sqlite"));
        auto report = importTasks(*store, kData + "/kernelbench", TaskFormat::Auto, "tester");
        QVERIFY(report.ok());
        QCOMPARE(report->created, 6);
        QCOMPARE(report->skipped, 2);
        QVERIFY2(findIssue(report->issues, "not_a_problem.py", "<number>_<Name>.py"),
                 qPrintable(issuesText(report->issues)));
        QVERIFY(findIssue(report->issues, "7_Missing_model.py", "class Model"));

        const Task relu = store->task("kb-l1-019-relu").value().value();
        QCOMPARE(relu.level, 1);
        QCOMPARE(toString(relu.source.kind), toString(SourceKind::KernelBench));
        QCOMPARE(relu.source.kbProblem, 19);
        QCOMPARE(relu.source.kbName, QString("ReLU"));
        QCOMPARE(relu.categories, QStringList{"activation"});
        QCOMPARE(relu.shown, PresentationSet{Presentation::Reference});
        const Task fused = store->task("kb-l2-012-conv2d-batchnorm-relu").value().value();
        QCOMPARE(fused.categories, (QStringList{"activation", "normalization", "convolution", "fused"}));
        QCOMPARE(store->task("kb-l3-002-small-mlp").value()->categories, (QStringList{"activation", "gemm", "model"}));
        QVERIFY(!store->task("kb-l3-002-small-mlp").value()->tags.contains(kNeedsWeightsTag));
        // Level 4: a hub model's name in the file name, weights downloaded by name: imported and marked.
        const Task hub = store->task("kb-l4-001-acme-tiny-lm-0-5b-bs2-seq16").value().value();
        QCOMPARE(hub.level, 4);
        QCOMPARE(hub.title, QString("Acme-tiny-lm-0.5B bs2 seq16"));
        QCOMPARE(hub.tags, (QStringList{"kernelbench", kNeedsWeightsTag}));

        // Idempotent: again, nothing changes and no audit rows are added.
        const int auditBefore = int(store->audit().value().size());
        auto again = importTasks(*store, kData + "/kernelbench", TaskFormat::KernelBench, "tester");
        QCOMPARE(again->created, 0);
        QCOMPARE(again->unchanged, 6);
        QCOMPARE(int(store->audit().value().size()), auditBefore);
    }

    void malformedFoldersAreReportedAndTheRestGoesOn()
    {
        QTemporaryDir dir;
        auto store = openStore(dir.filePath("s.sqlite"));
        auto report = importTasks(*store, kData + "/malformed-tasks", TaskFormat::Auto, "tester");
        QVERIFY(report.ok());
        QCOMPARE(report->created, 1);
        QCOMPARE(report->skipped, 4);
        const QString text = issuesText(report->issues);
        const ImportIssue* broken = findIssue(report->issues, "broken-toml/task.toml", "");
        QVERIFY2(broken && broken->line >= 2, qPrintable(text));
        const ImportIssue* wrong = findIssue(report->issues, "wrong-type/task.toml", "'level'");
        QVERIFY2(wrong && wrong->line == 4, qPrintable(text));
        QVERIFY2(findIssue(report->issues, "bad-contract/reference.py", "get_init_inputs"), qPrintable(text));
        QVERIFY2(findIssue(report->issues, "bad-contract/task.toml", "shows 'spec'"), qPrintable(text));
        const ImportIssue* mismatch = findIssue(report->issues, "id-mismatch/task.toml", "differs from the folder");
        QVERIFY2(mismatch && mismatch->line == 1, qPrintable(text));
        const ImportIssue* noToml = findIssue(report->issues, "no-toml-here", "no task.toml");
        QVERIFY(noToml && noToml->severity == ImportIssue::Severity::Warning);
        QCOMPARE(ids(*store), QStringList{"good-one"});
    }

    void malformedJsonlLinesAreReportedWithTheirLine()
    {
        QTemporaryDir dir;
        auto store = openStore(dir.filePath("s.sqlite"));
        auto report = importTasks(*store, kData + "/malformed.jsonl", TaskFormat::Auto, "tester");
        QVERIFY(report.ok());
        QCOMPARE(report->created, 2);
        QCOMPARE(report->skipped, 4);
        const QString text = issuesText(report->issues);
        for (const auto& [line, part] : {std::pair{2, QString("malformed JSON")}, std::pair{3, QString("JSON object")},
                                         std::pair{5, QString("level")}, std::pair{7, QString("unknown key")}}) {
            bool found = false;
            for (const ImportIssue& i : report->issues)
                found = found || (i.line == line && i.reason.contains(part));
            QVERIFY2(found, qPrintable(QString("line %1 '%2' not reported in:\n%3").arg(line).arg(part, text)));
        }
        const Task good = store->task("jl-good-1").value().value();
        QCOMPARE(toString(good.source.kind), toString(SourceKind::File));
        QCOMPARE(good.source.line, 1);
        QCOMPARE(good.configs[1].values.value("n").typeId(), int(QMetaType::Double));
    }

    void badImportNeverLosesStoredData()
    {
        QTemporaryDir dir;
        auto store = openStore(dir.filePath("s.sqlite"));
        QVERIFY(importTasks(*store, kData + "/kernelbench", TaskFormat::Auto, "tester").ok());
        QVERIFY(store->review("kb-l1-019-relu", ReviewStatus::Accepted, "ann", "R1", "fine").ok());
        const QList<Task> before = store->tasks().value();
        (void)importTasks(*store, kData + "/malformed.jsonl", TaskFormat::Auto, "tester");
        (void)importTasks(*store, kData + "/malformed-tasks", TaskFormat::Auto, "tester");
        auto missing = importTasks(*store, dir.filePath("nope.jsonl"), TaskFormat::Auto, "tester");
        QVERIFY(missing.ok());
        QCOMPARE(missing->issues.size(), 1);
        for (const Task& t : before)
            QVERIFY(store->task(t.id).value().value() == t);
        QCOMPARE(toString(store->task("kb-l1-019-relu").value()->status), toString(ReviewStatus::Accepted));
    }

    void bundledTasksSurviveExportAndReimport_data()
    {
        QTest::addColumn<TaskFormat>("format");
        QTest::newRow("folder") << TaskFormat::Folder;
        QTest::newRow("jsonl") << TaskFormat::Jsonl;
    }
    void bundledTasksSurviveExportAndReimport()
    {
        QFETCH(TaskFormat, format);
        QTemporaryDir dir;
        auto first = openStore(dir.filePath("first.sqlite"));
        auto r1 = importTasks(*first, QStringLiteral(KMOSAIC_TASKS_DIR), TaskFormat::Folder, "tester");
        QVERIFY(r1.ok());
        QVERIFY2(r1->skipped == 0, qPrintable(issuesText(r1->issues)));
        QVERIFY(r1->created >= 40);
        QVERIFY(first->review(ids(*first).first(), ReviewStatus::NeedsChanges, "ann", "R2", "").ok());

        const QString out = dir.filePath(format == TaskFormat::Jsonl ? "export.jsonl" : "export");
        QCOMPARE(exportTasks(*first, {}, format, out).value(), r1->created);
        auto second = openStore(dir.filePath("second.sqlite"));
        auto r2 = importTasks(*second, out, format, "tester");
        QVERIFY2(r2.ok() && r2->issues.isEmpty(), qPrintable(issuesText(r2->issues)));
        QCOMPARE(r2->created, r1->created);
        const QList<Task> a = first->tasks().value();
        const QList<Task> b = second->tasks().value();
        QCOMPARE(a.size(), b.size());
        for (int i = 0; i < a.size(); ++i)
            QVERIFY2(a[i] == b[i], qPrintable(a[i].id));

        // Exporting the second store gives the same bytes (folder: every file; jsonl: the file).
        const QString out2 = dir.filePath(format == TaskFormat::Jsonl ? "export2.jsonl" : "export2");
        QVERIFY(exportTasks(*second, {}, format, out2).ok());
        if (format == TaskFormat::Jsonl) {
            QFile f1(out), f2(out2);
            QVERIFY(f1.open(QIODevice::ReadOnly) && f2.open(QIODevice::ReadOnly));
            QCOMPARE(f1.readAll(), f2.readAll());
        }
    }
};

QTEST_GUILESS_MAIN(TestImporters)
#include "test_importers.moc"
