// What the next prompt says about a verdict: rows of hand-made verdicts and the lines their feedback must (and must
// not) carry, the failure kind that chooses guidance, and the prompt values that follow the task's presentations.
#include "agent/AgentPrompt.h"
#include "agent/Feedback.h"
#include "util/Json.h"

#include <QtTest>

using namespace km;

namespace {
QVariantMap evidence(const char* jsonText)
{
    // Written with ' for " so that the rows stay readable; the texts hold no apostrophes.
    return json::parse(QByteArray(jsonText).replace('\'', '"'), nullptr).value_or(QVariant()).toMap();
}
}  // namespace

Q_DECLARE_METATYPE(km::Verdict)

class TestFeedback : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void feedback_data()
    {
        QTest::addColumn<Verdict>("verdict");
        QTest::addColumn<double>("best");  // < 0: none
        QTest::addColumn<QString>("failureStatus");
        QTest::addColumn<QStringList>("checks");
        QTest::addColumn<QStringList>("contains");
        QTest::addColumn<QStringList>("absent");

        Verdict build;
        build.status = VerdictStatus::CompileError;
        build.summary = "line 14: identifier undefined";
        build.diagnostics = {{"note", 0, "main.cpp", 7, "declared here"},
                             {"error", 14, "cuda.cu", 3, "identifier \"zero_value\" is undefined"}};
        QTest::newRow("compile error") << build << -1.0 << "COMPILE_ERROR" << QStringList{}
                                       << QStringList{"line 14: error: identifier \"zero_value\" is undefined",
                                                      "main.cpp:7: note: declared here",
                                                      "Verdict: COMPILE_ERROR (line 14"}
                                       << QStringList{"Timing", "Failing configuration"};

        Verdict wrong;
        wrong.status = VerdictStatus::IncorrectNumerical;
        wrong.evidence = evidence("{'failure':{'config':'odd-shape','seed':17,'message':'2 of 8 values differ',"
                                  "'max_abs':0.5,'max_rel':0.25,'mismatches':2}}");
        QTest::newRow("wrong result")
            << wrong << -1.0 << "INCORRECT_NUMERICAL" << QStringList{}
            << QStringList{"Configuration odd-shape, seed 17: max abs error 0.5, max rel error 0.25, 2 mismatching",
                           "2 of 8 values differ"}
            << QStringList{"Compiler diagnostics"};

        // A hidden configuration fails: the model learns that one did, not its name, seed or sizes.
        Verdict hidden;
        hidden.status = VerdictStatus::IncorrectNumerical;
        hidden.evidence = evidence("{'failure':{'config':'hidden-large','seed':17,'message':'3 values differ',"
                                   "'max_abs':0.5,'max_rel':0.25,'mismatches':3}}");
        QTest::newRow("wrong on a hidden configuration")
            << hidden << -1.0 << "INCORRECT_NUMERICAL" << QStringList{}
            << QStringList{"A hidden configuration: max abs error 0.5", "3 values differ"}
            << QStringList{"hidden-large", "seed 17"};

        Verdict crash;
        crash.status = VerdictStatus::RuntimeError;
        crash.evidence = evidence("{'error':{'kind':'exception','message':'CUDA error: illegal memory access',"
                                  "'traceback':'File solution.py, line 40, in forward'}}");
        QTest::newRow("runtime error") << crash << -1.0 << "RUNTIME_ERROR" << QStringList{}
                                       << QStringList{"exception: CUDA error: illegal memory access", "line 40"}
                                       << QStringList{};

        Verdict hack;
        hack.status = VerdictStatus::RewardHack;
        hack.findings = {{"static.try_fallback", Finding::Severity::Error, 40, "except handler calls torch"},
                         {"static.precision_cast", Finding::Severity::Warning, 0, "half cast"}};
        QTest::newRow("integrity") << hack << -1.0 << "REWARD_HACK" << QStringList{"static.try_fallback"}
                                   << QStringList{"static.try_fallback (error, line 40): except handler calls torch",
                                                  "static.precision_cast (warning): half cast"}
                                   << QStringList{};

        Verdict fast;
        fast.status = VerdictStatus::Passed;
        fast.speedup = 2.0;
        fast.evidence =
            evidence("{'timing':{'device':'cuda','solution_ms':{'median':0.5,'q1':0.49,'q3':0.51},"
                     "'reference_ms':{'median':1.0,'q1':0.99,'q3':1.01},'speedup':2.0,'speedup_ci95':[1.9,2.1]},"
                     "'profile':{'own_kernel_share':0.98,'kernels':[{'name':'leaky_kernel','ms':0.49,'own':true}]},"
                     "'ncu':{'kernels':[{'name':'leaky_kernel','duration_us':35.09,'dram_pct':85.1,'sm_pct':51.5,"
                     "'achieved_occupancy_pct':93.7,'registers':28,'block':'(256, 1, 1)','grid':'(32, 128, 1)'}]}}");
        QTest::newRow("passed, new best") << fast << 2.0 << "" << QStringList{}
                                          << QStringList{"your solution 0.5 ms (q1 0.49, q3 0.51), the reference 1 ms",
                                                         "speedup 2.00x",
                                                         "95% interval 1.9 to 2.1",
                                                         "2.00x: this version is the best so far",
                                                         "98.0% of the GPU time is in your own kernels",
                                                         "leaky_kernel: 0.49 ms (yours)",
                                                         "DRAM 85.1% of peak",
                                                         "28 registers",
                                                         "block (256, 1, 1)"}
                                          << QStringList{"Compiler"};
        Verdict damaged;
        damaged.status = VerdictStatus::IncorrectNumerical;
        damaged.evidence = evidence("{'failure':{'config':'small','seed':'seventeen'}}");
        QTest::newRow("damaged evidence")
            << damaged << -1.0 << "INCORRECT_NUMERICAL" << QStringList{}
            << QStringList{"Error:\nthe verdict's evidence does not read: evidence.failure.seed is not an integer"}
            << QStringList{"Failing configuration"};
        QTest::newRow("passed, slower than best")
            << fast << 3.0 << "" << QStringList{} << QStringList{"Best so far:\n3.00x, faster than this version"}
            << QStringList{"this version is the best"};
    }

    void feedback()
    {
        QFETCH(Verdict, verdict);
        QFETCH(double, best);
        QFETCH(QString, failureStatus);
        QFETCH(QStringList, checks);
        QFETCH(QStringList, contains);
        QFETCH(QStringList, absent);
        const Feedback fb = feedbackFor(verdict, best < 0 ? std::nullopt : std::optional<double>(best));
        const QString text = fb.text();
        QCOMPARE(fb.failureStatus, failureStatus);
        QCOMPARE(fb.checks, checks);
        for (const QString& c : contains)
            QVERIFY2(text.contains(c), qPrintable(QStringLiteral("missing '%1' in:\n%2").arg(c, text)));
        for (const QString& a : absent)
            QVERIFY2(!text.contains(a), qPrintable(QStringLiteral("unexpected '%1' in:\n%2").arg(a, text)));
    }

    void longFeedbackIsBounded()
    {
        Verdict v;
        v.status = VerdictStatus::RuntimeError;
        v.evidence = {{"error", QVariantMap{{"kind", "exception"}, {"message", QString(50000, QLatin1Char('x'))}}}};
        QVERIFY(feedbackFor(v, std::nullopt, 1000).error.size() < 1100);
    }

    void promptValuesFollowThePresentations()
    {
        Task t;
        t.id = "relu";
        t.title = "ReLU";
        t.description = "Apply max(x, 0).";
        t.reference = "class Model: ...";
        t.spec = "$$y = max(x, 0)$$";
        t.shown = PresentationSet{Presentation::Description, Presentation::Spec};
        PromptInputs in;
        auto v = promptValues(t, in);
        QCOMPARE(v.value("description"), t.description);
        QCOMPARE(v.value("specification"), t.spec);
        QVERIFY(v.value("reference").isEmpty());
        in.withTask = false;  // later turns: the conversation has the task already
        in.turn = 3;
        in.maxTurns = 8;
        in.problem = "reply was cut off inside a code block";
        v = promptValues(t, in);
        QVERIFY(v.value("description").isEmpty());
        QCOMPARE(v.value("attempt"), QStringLiteral("3 of 8"));
        QCOMPARE(v.value("truncated"), in.problem);
        QCOMPARE(v.value("task_title"), QStringLiteral("ReLU"));
    }

    // Configurations named hidden* are verified, never listed in a prompt.
    void hiddenConfigurationsNeverReachAPrompt()
    {
        Task t;
        t.id = "relu";
        t.title = "ReLU";
        t.configs = {TaskConfig{"small", {{"n", 64}}}, TaskConfig{"hidden-odd", {{"n", 1237}}},
                     TaskConfig{"wide", {{"n", 4096}}}};
        const QString configs = promptValues(t, PromptInputs{}).value("configs");
        QVERIFY2(configs.contains("small: n=64") && configs.contains("wide: n=4096"), qPrintable(configs));
        QVERIFY2(!configs.contains("hidden") && !configs.contains("1237"), qPrintable(configs));
        QVERIFY(isHiddenConfig("hidden-small") && !isHiddenConfig("small-hidden"));
    }
};

QTEST_GUILESS_MAIN(TestFeedback)
#include "test_feedback.moc"
