// The training-set export (curate/TrainingExport, DatasetSplit, ExportScrubbing, TrainingCard;
// services/TrainingExportService): the split rule, the scrubbing, every format written and read back, the dataset
// card's counts, and an export from a real store of tasks, runs, steps, accepted solutions and a stored selection.

#include "StoreTestSupport.h"
#include "agent/PromptTemplate.h"
#include "curate/DatasetSplit.h"
#include "curate/ExportScrubbing.h"
#include "curate/TrainingCard.h"
#include "curate/TrainingExport.h"
#include "services/SelectionService.h"
#include "services/SolutionReviewService.h"
#include "services/TrainingExportService.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"
#include "util/Json.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::training;

namespace {

const QString kKey = QStringLiteral("sk-proj-abcdefghijklmnopqrstuvwx");

QVariantMap msg(const QString& role, const QString& content)
{
    return {{"role", role}, {"content", content}};
}

TrajectoryStep step(int idx, Stage stage, const QString& status, qint64 solutionId, const QString& code)
{
    TrajectoryStep s;
    s.idx = idx;
    s.stage = stage;
    s.status = status;
    s.solutionId = solutionId;
    s.code = code;
    s.prompt = QStringLiteral("prompt %1").arg(idx + 1);
    s.reply = QStringLiteral("```python\n%1\n```").arg(code);
    if (idx == 0)
        s.messages.append(msg("system", "You write CUDA kernels."));
    s.messages.append(msg("user", s.prompt));
    s.messages.append(msg("assistant", s.reply));
    if (status == "PASSED")
        s.speedup = 1.5 + idx;
    return s;
}

Task task(const QString& id, int level, const QStringList& categories)
{
    Task t;
    t.id = id;
    t.title = id;
    t.level = level;
    t.categories = categories;
    // Each its own operation: two tasks whose references are alike would be one near-duplicate cluster.
    t.reference = QStringLiteral("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                                 "        return torch.%1(x, %2)\n")
                      .arg(id)
                      .arg(level * 7);
    t.shown = PresentationSet{Presentation::Reference};
    t.status = ReviewStatus::Accepted;
    return t;
}

// Two tasks; run 1 on relu fails, is repaired (accepted), then optimised (draft); run 2 on relu never gets an
// accepted solution; run 3 on sum passes at once (accepted).
Input fixture()
{
    Input in;
    in.selection = "fixture";
    in.selectionSeed = 3;
    in.tasks = {task("relu", 1, {"activation"}), task("sum", 2, {"reduction", "fused"})};
    RunRecord a;
    a.run.id = 1;
    a.run.taskId = "relu";
    a.steps = {step(0, Stage::Implement, "INCORRECT_NUMERICAL", 10, "bad()"),
               step(1, Stage::Repair, "PASSED", 11, "good()"), step(2, Stage::Optimise, "PASSED", 12, "faster()")};
    a.solutionStatus = {{10, ReviewStatus::Rejected}, {11, ReviewStatus::Accepted}, {12, ReviewStatus::Draft}};
    RunRecord b;
    b.run.id = 2;
    b.run.taskId = "relu";
    b.steps = {step(0, Stage::Implement, "COMPILE_ERROR", 20, "broken(")};
    RunRecord c;
    c.run.id = 3;
    c.run.taskId = "sum";
    c.steps = {step(0, Stage::Implement, "PASSED", 30, "summed()")};
    c.solutionStatus = {{30, ReviewStatus::Accepted}};
    in.runs = {a, b, c};
    in.accepted = {{11, "relu", "good()", 2.5, "NVIDIA H200", "1.0.0"},
                   {13, "relu", "best()", 4.0, "NVIDIA H200", "1.0.0"},
                   {30, "sum", "summed()", 1.5, "NVIDIA H200", "1.0.0"}};
    in.rejections.solutions = 5;
    in.rejections.byStatus = {{"PASSED", 3}, {"REWARD_HACK", 1}, {"COMPILE_ERROR", 1}};
    in.rejections.byCheck = {{"static.threads", 1}};
    return in;
}

QList<QVariantMap> jsonLines(const QByteArray& bytes)
{
    QList<QVariantMap> out;
    for (const QByteArray& line : bytes.split('\n')) {
        if (line.isEmpty())
            continue;
        json::ParseError e;
        auto v = json::parse(line, &e);
        if (!v)
            qWarning("not JSON: %s (%s)", line.constData(), qPrintable(e.reason));
        out.append(v.value_or(QVariant()).toMap());
    }
    return out;
}

QMap<QString, QByteArray> files(const Output& out)
{
    QMap<QString, QByteArray> m;
    for (const File& f : out.files)
        m.insert(f.path, f.bytes);
    return m;
}

}  // namespace

class TestTrainingExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void splitsKeepClustersWhole()
    {
        QStringList ids;
        for (int i = 0; i < 40; ++i)
            ids.append(QStringLiteral("t%1").arg(i, 2, 10, QLatin1Char('0')));
        dedup::Cluster c;
        for (const char* id : {"t03", "t17", "t29", "t31"})
            c.members.append(dedup::Member{id, false, {}, 0.9, "reference"});
        for (quint64 seed = 1; seed <= 20; ++seed) {
            const auto side = splitByCluster(ids, {c}, seed, 0.25);
            QCOMPARE(side.size(), 40);
            QSet<QString> clusterSides{side.value("t03"), side.value("t17"), side.value("t29"), side.value("t31")};
            QCOMPARE(clusterSides.size(), 1);  // never straddles
            const auto inTest = std::count_if(side.begin(), side.end(), [](const QString& s) { return s == kTest; });
            QVERIFY2(inTest >= 10 && inTest <= 13, qPrintable(QString::number(inTest)));  // at least a quarter
            QCOMPARE(splitByCluster(ids, {c}, seed, 0.25), side);                         // deterministic
            QStringList reversed = ids;
            std::reverse(reversed.begin(), reversed.end());
            QCOMPARE(splitByCluster(reversed, {c}, seed, 0.25), side);  // whatever the order
        }
        QVERIFY(splitByCluster(ids, {c}, 1, 0.25) != splitByCluster(ids, {c}, 2, 0.25));
        const auto none = splitByCluster(ids, {c}, 1, 0);
        QVERIFY(std::all_of(none.begin(), none.end(), [](const QString& s) { return s == kTrain; }));
    }

    void scrubbing_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("openai key") << "key " + kKey + " here"
                                    << "key [redacted] here";
        QTest::newRow("anthropic key") << "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA"
                                       << "[redacted]";
        QTest::newRow("bearer") << "Authorization: Bearer abc.def-ghi_jkl012"
                                << "Authorization: Bearer [redacted]";
        QTest::newRow("hf token") << "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  << "[redacted]";
        QTest::newRow("email") << "reviewed by ann.lee@example.com."
                               << "reviewed by [email].";
        QTest::newRow("home path") << "/home/ann/work/relu.py:3: error"
                                   << "relu.py:3: error";
        QTest::newRow("build folder") << "/tmp/kmosaic-x1/build/cuda.cu(21): error"
                                      << "cuda.cu(21): error";
        QTest::newRow("windows path") << R"(C:\Users\ann\relu.py)"
                                      << "relu.py";
        QTest::newRow("matrix product kept") << "y = q@k.transpose(1, 2) @ v.to(x)"
                                             << "y = q@k.transpose(1, 2) @ v.to(x)";
        QTest::newRow("toolkit path kept") << "/usr/local/cuda/include/cuda.h"
                                           << "/usr/local/cuda/include/cuda.h";
        QTest::newRow("relative path kept") << "build/cuda.cu:3"
                                            << "build/cuda.cu:3";
        QTest::newRow("division kept") << "x = a/tmp/b"
                                       << "x = a/tmp/b";
    }
    void scrubbing()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(scrubForExport(text), expected);
    }

    void trajectoriesEndAtTheAcceptedStepWithFailuresMarked()
    {
        const Input in = fixture();
        Options o;
        o.testFraction = 0;
        auto out = build(in, o);
        QVERIFY2(out.ok(), qPrintable(out.ok() ? QString() : out.error().message));
        QCOMPARE(out->runsWithoutAcceptedSolution, 1);
        QCOMPARE(out->examples.value(kTrain), 2);
        const auto f = files(out.value());
        QVERIFY(f.contains("openai/train.jsonl") && f.contains("trl/train.jsonl") && f.contains("README.md") &&
                f.contains("splits.json"));
        QVERIFY(!f.contains("openai/test.jsonl"));  // no example in test: no file the card would name
        const auto openai = jsonLines(f.value("openai/train.jsonl"));
        QCOMPARE(openai.size(), 2);
        QCOMPARE(openai[0].keys(), QStringList{"messages"});  // OpenAI's layout: nothing beside the messages
        const QVariantList m = openai[0].value("messages").toList();
        QCOMPARE(m.size(), 5);  // system, prompt 1, failed reply, prompt 2, accepted reply; the optimise step is cut
        QStringList roles;
        for (const QVariant& v : m)
            roles.append(v.toMap().value("role").toString());
        QCOMPARE(roles, (QStringList{"system", "user", "assistant", "user", "assistant"}));
        QCOMPARE(m[2].toMap().value("weight").toInt(), 0);
        QCOMPARE(m[4].toMap().value("weight").toInt(), 1);
        QVERIFY(m[4].toMap().value("content").toString().contains("good()"));
        QVERIFY(!m[1].toMap().contains("weight"));
        const auto trl = jsonLines(f.value("trl/train.jsonl"));
        QCOMPARE(trl[0].value("task_id").toString(), QString("relu"));
        const QVariantList steps = trl[0].value("steps").toList();
        QCOMPARE(steps.size(), 2);
        QVERIFY(steps[0].toMap().value("failed").toBool());
        QCOMPARE(steps[0].toMap().value("status").toString(), QString("INCORRECT_NUMERICAL"));
        QVERIFY(!steps[1].toMap().value("failed").toBool());
        QCOMPARE(trl[0].value("speedup").toDouble(), 2.5);
        for (const QVariant& v : trl[0].value("messages").toList())
            QVERIFY(!v.toMap().contains("weight"));
    }

    void aStepWithoutMessagesHasItsPromptAndReply()
    {
        Input in = fixture();
        in.runs[2].steps[0].messages.clear();
        auto out = build(in, Options{Format::Trajectory, 1, 0.0, "mit"});
        QVERIFY(out.ok());
        const auto openai = jsonLines(files(out.value()).value("openai/train.jsonl"));
        const QVariantList m = openai[1].value("messages").toList();
        QCOMPARE(m.size(), 2);
        QCOMPARE(m[0].toMap().value("content").toString(), QString("prompt 1"));
        QCOMPARE(m[1].toMap().value("content").toString(), QString("```python\nsummed()\n```"));
        QCOMPARE(m[1].toMap().value("weight").toInt(), 1);
    }

    void directIsTheFirstPromptAndTheAcceptedCode()
    {
        auto out = build(fixture(), Options{Format::Direct, 1, 0.0, "mit"});
        QVERIFY(out.ok());
        const auto trl = jsonLines(files(out.value()).value("trl/train.jsonl"));
        QCOMPARE(trl.size(), 2);
        const QVariantList m = trl[0].value("messages").toList();
        QCOMPARE(m.size(), 3);
        QCOMPARE(m[1].toMap().value("content").toString(), QString("prompt 1"));
        QCOMPARE(m[2].toMap().value("content").toString(), QString("```python\ngood()\n```"));
        QCOMPARE(trl[0].value("source").toString(), QString("run"));
        // relu's best() was accepted without a run: with no first prompt to put it on, it is counted, not exported
        QCOMPARE(out->solutionsWithoutPrompt, 1);
        QCOMPARE(out->solutionExamples, 0);
    }

    void directAlsoHasTheAcceptedSolutionsNoRunGave()
    {
        Input in = fixture();
        in.firstPrompts.insert("relu", {"You write CUDA kernels.", "Implement relu."});
        in.firstPrompts.insert("sum", {"You write CUDA kernels.", "Implement sum."});
        auto out = build(in, Options{Format::Direct, 1, 0.0, "mit"});
        VERIFY_OK(out);
        QCOMPARE(out->solutionExamples, 1);  // best(); sum's summed() is its run's code, exported once
        QCOMPARE(out->solutionsWithoutPrompt, 0);
        QCOMPARE(out->examples.value(kTrain), 3);
        const auto f = files(out.value());
        const auto trl = jsonLines(f.value("trl/train.jsonl"));
        QCOMPARE(trl.size(), 3);
        const QVariantMap hand = trl[2];
        QCOMPARE(hand.value("source").toString(), QString("solution"));
        QCOMPARE(hand.value("task_id").toString(), QString("relu"));
        QCOMPARE(hand.value("speedup").toDouble(), 4.0);
        const QVariantList m = hand.value("messages").toList();
        QCOMPARE(m.size(), 3);
        QCOMPARE(m[0].toMap().value("content").toString(), QString("You write CUDA kernels."));
        QCOMPARE(m[1].toMap().value("content").toString(), QString("Implement relu."));
        QCOMPARE(m[2].toMap().value("content").toString(), QString("```python\nbest()\n```"));
        const auto openai = jsonLines(f.value("openai/train.jsonl"));
        QCOMPARE(openai[2].value("messages").toList().last().toMap().value("weight").toInt(), 1);
        // a selection whose only accepted solutions have no run still exports as direct (not as trajectories)
        in.runs.clear();
        auto alone = build(in, Options{Format::Direct, 1, 0.0, "mit"});
        VERIFY_OK(alone);
        QCOMPARE(alone->solutionExamples, 3);
        QVERIFY(!build(in, Options{Format::Trajectory, 1, 0.0, "mit"}).ok());
    }

    void kernelBenchFilesByLevelWithTheFastestAcceptedSolution()
    {
        auto out = build(fixture(), Options{Format::KernelBench, 1, 0.0, "mit"});
        QVERIFY(out.ok());
        const auto f = files(out.value());
        QVERIFY2(f.contains("train/level1/1_relu.py") && f.contains("train/solutions/level1/1_relu.py") &&
                     f.contains("train/level2/1_sum.py") && f.contains("train/solutions/level2/1_sum.py"),
                 qPrintable(f.keys().join(", ")));
        QCOMPARE(f.value("train/solutions/level1/1_relu.py"), QByteArray("best()"));  // 4.0x beats 2.5x
        QVERIFY(f.value("train/level1/1_relu.py").contains("class Model"));
        const auto manifest = jsonLines(f.value("train/manifest.jsonl"));
        QCOMPARE(manifest.size(), 2);
        QCOMPARE(manifest[0].value("solution").toString(), QString("solutions/level1/1_relu.py"));
        QCOMPARE(manifest[0].value("speedup").toDouble(), 4.0);
    }

    void theCardCountsWhatWasExported()
    {
        Options o;
        o.testFraction = 0.5;
        o.license = "cc-by-4.0";
        auto out = build(fixture(), o);
        QVERIFY(out.ok());
        const QString card = QString::fromUtf8(files(out.value()).value("README.md"));
        QVERIFY2(card.startsWith("---\nlicense: cc-by-4.0\n"), qPrintable(card.left(200)));
        QVERIFY(card.contains("size_categories:\n- n<1K\n"));
        QVERIFY(card.contains("task_categories:\n- text-generation\n"));
        QVERIFY(card.contains("- config_name: openai\n  data_files:\n"));
        QVERIFY(card.contains("    path: openai/train.jsonl\n"));
        QVERIFY(card.contains("    path: trl/test.jsonl\n"));
        QVERIFY(card.contains("2 examples from 2 tasks"));
        QCOMPARE(out->examples.value(kTrain), 1);  // two single tasks, half of them in test
        QCOMPARE(out->examples.value(kTest), 1);
        QVERIFY(card.contains("| 1 | 1 |\n| 2 | 1 |\n"));                                  // by level
        QVERIFY(card.contains("| activation | 1 |\n| fused | 1 |\n| reduction | 1 |\n"));  // by category
        QVERIFY(card.contains("| REWARD_HACK | 1 |"));
        QVERIFY(card.contains("| `static.threads` | 1 |"));
        QVERIFY(card.contains("- harness: 1.0.0\n- GPU: NVIDIA H200\n"));
        QVERIFY(card.contains("1 agent run(s) of these tasks ended without an accepted solution"));
        QCOMPARE(sizeCategory(999), QString("n<1K"));
        QCOMPARE(sizeCategory(1000), QString("1K<n<10K"));
        QCOMPARE(sizeCategory(250000), QString("100K<n<1M"));
    }

    void noSecretPathOrAddressInAnyFile()
    {
        Input in = fixture();
        RunRecord& r = in.runs[0];
        r.steps[0].messages[1] = msg("user", "Key " + kKey + ", see /home/ann/kernels/relu.py, ask ann@example.org");
        r.steps[1].messages[1] = msg("assistant", "```python\n# by bob@example.com\ngood()  # " + kKey + "\n```");
        in.tasks[0].reference += "# from /work/ann/private/ref.py\n";
        in.accepted[1].code = "best()  # Bearer abcdefghijklmnop\n";
        for (Format f : {Format::Trajectory, Format::Direct, Format::KernelBench}) {
            auto out = build(in, Options{f, 1, 0.5, "mit"});
            QVERIFY(out.ok());
            for (const File& file : out->files)
                for (const char* bad : {"sk-proj", "@example", "/home/", "/work/", "abcdefghijklmnop"})
                    QVERIFY2(!file.bytes.contains(bad), qPrintable(toString(f) + ": " + file.path + " holds " + bad));
        }
    }

    void nothingToExportIsAnError()
    {
        Input in = fixture();
        in.runs.removeAt(2);
        in.runs.removeAt(0);
        auto out = build(in, Options{});
        QVERIFY(!out.ok());
        QVERIFY2(out.error().message.contains("no agent run whose solution is accepted (1 run(s) without one)"),
                 qPrintable(out.error().message));
        in.tasks.clear();
        QVERIFY(build(in, Options{}).error().message.contains("holds no task"));
    }

    void exportsAStoredSelectionFromARealStore()
    {
        QTemporaryDir dir;
        auto opened = TaskStore::open(dir.filePath("s.sqlite"));
        VERIFY_OK(opened);
        TaskStore& tasks = *opened.value();
        VERIFY_OK(tasks.upsertTasks({task("relu", 1, {"activation"}), task("sum", 2, {"reduction"})}, "t", "fixture"));
        store::Database& db = tasks.database();
        TrajectoryStore trajectories(db);
        SolutionReviewService review(db);
        QList<qint64> acceptedSolutions;
        for (const QString& id : {QStringLiteral("relu"), QStringLiteral("sum")}) {
            AgentRun run;
            run.taskId = id;
            run.model = "m";
            auto created = trajectories.createRun(run, "t");
            VERIFY_OK(created);
            for (int i = 0; i < 2; ++i) {
                TrajectoryStep s = step(i, i ? Stage::Repair : Stage::Implement, i ? "PASSED" : "INCORRECT_NUMERICAL",
                                        0, QStringLiteral("code_%1_%2()").arg(id).arg(i));
                Verdict v;
                v.status = i ? VerdictStatus::Passed : VerdictStatus::IncorrectNumerical;
                v.harnessVersion = "1.0.0";
                if (!i)
                    v.findings = {{"correctness.numerical", Finding::Severity::Error, 0, "off by 1"}};
                auto recorded = trajectories.recordStep(created.value(), s, v, i == 1, "t");
                VERIFY_OK(recorded);
                if (i == 1)
                    acceptedSolutions.append(recorded->solutionId);
            }
            VERIFY_OK(trajectories.finishRun(created->id, RunState::Completed, {}, {}));
        }
        for (qint64 s : acceptedSolutions)
            VERIFY_OK(review.decide(s, ReviewStatus::Accepted, "ann", "checked by hand on the CPU", {}, true));
        SelectionService selections(tasks);
        selection::Request request;
        VERIFY_OK(selections.create("both", request, "ann", false));

        TrainingExportService service(tasks);
        QList<int> seen;
        const QString out = dir.filePath("out");
        auto r = service.exportTo("both", out, Options{Format::Trajectory, 1, 0.0, "mit"},
                                  [&](int done, int, const QString&) { seen.append(done); });
        VERIFY_OK(r);
        QCOMPARE(r->examples.value(kTrain), 2);
        QVERIFY(!seen.isEmpty());
        const auto lines = jsonLines(fileBytes(out + "/openai/train.jsonl"));
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0].value("messages").toList().size(), 5);
        const QString card = QString::fromUtf8(fileBytes(out + "/README.md"));
        QVERIFY2(card.contains("| INCORRECT_NUMERICAL | 2 |") && card.contains("| PASSED | 2 |") &&
                     card.contains("| `correctness.numerical` | 2 |"),
                 qPrintable(card));
        // The folder is not empty now: a second export into it is refused and leaves it as it was.
        auto again = service.exportTo("both", out, Options{});
        QVERIFY(!again.ok());
        QVERIFY(again.error().message.contains("is not empty"));
        QCOMPARE(jsonLines(fileBytes(out + "/openai/train.jsonl")).size(), 2);
        auto unknown = service.exportTo("nope", dir.filePath("other"), Options{});
        QCOMPARE(unknown.error().code, ErrorCode::NotFound);
        QVERIFY(!QFileInfo::exists(dir.filePath("other")));
        // kernelbench from the same store
        VERIFY_OK(service.exportTo("both", dir.filePath("kb"), Options{Format::KernelBench, 1, 0.0, "mit"}));
        QCOMPARE(fileBytes(dir.filePath("kb/train/solutions/level2/1_sum.py")), QByteArray("code_sum_1()"));
        // direct with the prompt library: a solution written by hand and accepted gets relu's first prompt
        auto hand = VerdictStore(db).addSolution("relu", "hand_written()", "manual", "ann");
        VERIFY_OK(hand);
        VERIFY_OK(review.decide(hand->id, ReviewStatus::Accepted, "ann", "checked by hand on the CPU", {}, true));
        auto prompts = PromptLibrary::loadDefault();
        VERIFY_OK(prompts);
        auto direct = TrainingExportService(tasks, &prompts.value())
                          .exportTo("both", dir.filePath("direct"), Options{Format::Direct, 1, 0.0, "mit"});
        VERIFY_OK(direct);
        QCOMPARE(direct->solutionExamples, 1);
        QCOMPARE(direct->examples.value(kTrain), 3);
        const auto trl = jsonLines(fileBytes(dir.filePath("direct/trl/train.jsonl")));
        const auto byHand =
            std::find_if(trl.begin(), trl.end(), [](const QVariantMap& e) { return e.value("source") == "solution"; });
        QVERIFY(byHand != trl.end());
        const QVariantList m = byHand->value("messages").toList();
        QCOMPARE(m.size(), 3);
        QCOMPARE(m[0].toMap().value("role").toString(), QString("system"));
        QVERIFY2(m[1].toMap().value("content").toString().contains("torch.relu(x, 7)"),
                 qPrintable(m[1].toMap().value("content").toString()));  // the implement prompt shows the reference
        QCOMPARE(m[2].toMap().value("content").toString(), QString("```python\nhand_written()\n```"));
        // without the library the same solution is left out, and said so
        auto bare = service.exportTo("both", dir.filePath("bare"), Options{Format::Direct, 1, 0.0, "mit"});
        VERIFY_OK(bare);
        QCOMPARE(bare->solutionsWithoutPrompt, 1);
        QCOMPARE(bare->examples.value(kTrain), 2);
    }
};

QTEST_GUILESS_MAIN(TestTrainingExport)
#include "test_training_export.moc"
