// StepView on the shipped demonstrations: the Code tab marks the compile error's line and a click on the
// diagnostic jumps there; the Verdict tab shows trials and timing numbers; the Conversation tab renders Markdown or
// raw text; the Step tab and the parts without a verdict or code say so; a tab not shown at a step switch shows that
// step when it is opened.
#include "ReplayFixture.h"
#include "replay/CodePane.h"
#include "replay/ConversationPane.h"
#include "replay/DiffView.h"
#include "replay/StepView.h"
#include "replay/VerdictHtml.h"

#include "views/Qsci.h"
#include <QTextDocument>

#include <QCheckBox>
#include <QLabel>
#include <QListWidget>
#include <QTextBrowser>

using namespace km;
using namespace km::replay;

class TestStepView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void compileErrorIsMarkedAtItsLineAndTheListJumpsThere()
    {
        const StepDetail compileError = test::demonstration("gelu-tanh").details[0];
        QCOMPARE(compileError.step.status, QString("COMPILE_ERROR"));
        QVERIFY(compileError.verdict);
        QCOMPARE(compileError.verdict->diagnostics.size(), 1);
        QCOMPARE(compileError.verdict->diagnostics[0].line, 23);  // mapped to the solution's line

        StepView v;
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setStep(compileError);
        v.setCurrentIndex(StepView::CodeTab);
        CodePane* code = v.code();
        QCOMPARE(code->editor()->text(), compileError.step.code);
        QCOMPARE(code->markedLines(), QList<int>{23});
        QVERIFY(code->editor()->annotation(22).contains("identifier \"GELU\" is undefined"));
        QListWidget* list = code->diagnosticList();
        QCOMPARE(list->count(), 1);
        QVERIFY(list->item(0)->text().contains("line 23"));
        code->editor()->setCursorPosition(0, 0);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(0)).center());
        int line = -1, index = -1;
        code->editor()->getCursorPosition(&line, &index);
        QCOMPARE(line, 22);

        v.setStep(test::demonstration("gelu-tanh").details[1]);  // the repair passed: no markers left
        QVERIFY(code->markedLines().isEmpty());
        QVERIFY(code->diagnosticList()->item(0)->text().contains("No diagnostics"));
    }

    void aBuiltVerdictsDiagnosticsAndFindingsAreMarked()
    {
        Verdict verdict;
        verdict.status = VerdictStatus::RewardHack;
        verdict.diagnostics = {{"warning", 2, "cuda.cu", 7, "unused variable"}, {"error", 0, "main.cpp", 3, "lost"}};
        verdict.findings = {{"static.threads", Finding::Severity::Error, 3, "spawns a thread"}};
        CodePane pane;
        pane.setCode("a\nb\nc\nd\n", verdict);
        QCOMPARE(pane.markedLines(), (QList<int>{2, 3}));
        QVERIFY(pane.editor()->markersAtLine(2) & (1 << CodePane::kErrorMarker));
        QVERIFY(pane.editor()->markersAtLine(1) & (1 << CodePane::kWarningMarker));
        QCOMPARE(pane.diagnosticList()->count(), 3);
        QVERIFY(pane.diagnosticList()->item(1)->text().contains("no line"));
    }

    void verdictTabShowsTrialsAndTiming()
    {
        const StepDetail best = test::demonstration("gelu-tanh").details[2];
        StepView v;
        v.setStep(best);
        const QString text = v.verdictBrowser()->toPlainText();
        QVERIFY(text.contains("PASSED"));
        QVERIFY(text.contains("Trials"));
        for (const char* config : {"default", "small", "odd-shape"})
            QVERIFY2(text.contains(QLatin1String(config)), config);
        QVERIFY(text.contains("2002200267"));                            // the seed
        QVERIFY(text.contains("median 0.1436 ms, IQR 0.1422..0.1456"));  // the solution's timing
        QVERIFY(text.contains("median 1.406 ms"));                       // the reference's
        QVERIFY(text.contains("CI95 9.757x..9.843x"));
        QVERIFY(text.contains("9.793x"));
        QVERIFY(text.contains("NVIDIA H200"));
        QVERIFY(text.contains("Build and durations"));
        QVERIFY(text.contains("judge"));

        const StepDetail wrong = test::demonstration("rmsnorm").details[0];  // INCORRECT_NUMERICAL: a failed trial
        v.setStep(wrong);
        const QString wrongText = v.verdictBrowser()->toPlainText();
        QVERIFY(wrongText.contains("INCORRECT_NUMERICAL"));
        QVERIFY(wrongText.contains("167753083"));  // the mismatches of the failed trial
        QVERIFY(wrongText.contains("6.048"));      // its max abs
        QVERIFY(wrongText.contains("0.7764"));     // the failure's max rel
        QVERIFY(wrongText.contains("seed 1984520163"));

        const StepDetail hack = test::demonstration("column-max").details[0];
        v.setStep(hack);
        const QString hackText = v.verdictBrowser()->toPlainText();
        QVERIFY(hackText.contains("REWARD_HACK"));
        QVERIFY(hackText.contains("runtime.constant_output"));
        QVERIFY(hackText.contains("error"));  // the finding's severity
    }

    void verdictTabShowsProfilerSanitizerAndGpu()
    {
        StepDetail d = test::demonstration("gelu-tanh").details[2];
        QVariantMap& e = d.verdict->evidence;
        e["ncu"] = QVariantMap{{"tool", "ncu"},
                               {"ok", true},
                               {"kernels", QVariantList{QVariantMap{{"name", "gelu_kernel"},
                                                                    {"launches", 3},
                                                                    {"duration_us", 142.5},
                                                                    {"dram_pct", 87.1},
                                                                    {"sm_pct", 40.2},
                                                                    {"achieved_occupancy_pct", 91.3},
                                                                    {"registers", 24},
                                                                    {"block", "(256, 1, 1)"},
                                                                    {"grid", "(65536, 1, 1)"}}}}};
        e["memcheck"] = QVariantMap{{"tool", "compute-sanitizer"},
                                    {"ok", false},
                                    {"error_count", 2},
                                    {"errors", QVariantList{QVariantMap{{"kind", "Invalid __global__ read"},
                                                                        {"kernel", "gelu_kernel"},
                                                                        {"thread", "(3,0,0)"},
                                                                        {"block", "(7,0,0)"},
                                                                        {"detail", "Address 0x7f is out of bounds"}}}}};
        e["gpu"] = QVariantMap{{"index", 3}, {"name", "NVIDIA H200 NVL"}};
        StepView v;
        v.setStep(d);
        const QString text = v.verdictBrowser()->toPlainText();
        QVERIFY(text.contains("Nsight Compute"));
        QVERIFY(text.contains("gelu_kernel"));
        QVERIFY(text.contains("142.5"));
        QVERIFY(text.contains("87.1"));
        QVERIFY(text.contains("91.3"));
        QVERIFY(text.contains("(256, 1, 1) (65536, 1, 1)"));
        QVERIFY(text.contains("2 errors"));
        QVERIFY(text.contains("Address 0x7f is out of bounds"));
        QVERIFY(text.contains("NVIDIA H200 NVL (GPU 3)"));

        e["trials"] = "not a list";
        v.setStep(d);
        QVERIFY(v.verdictBrowser()->toPlainText().contains("The evidence did not decode"));
        QVERIFY(v.verdictBrowser()->toPlainText().contains("PASSED"));  // the verdict's own fields still show
    }

    void stepWithoutCodeSaysSoEverywhere()
    {
        const StepDetail noCode = test::demonstration("row-sum").details[0];
        QVERIFY(!noCode.verdict);
        StepView v;
        v.resize(800, 500);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setStep(noCode);
        QVERIFY(v.verdictBrowser()->toPlainText().contains("No verdict: no code block with class ModelNew"));
        v.setCurrentIndex(StepView::CodeTab);
        auto* empty = v.code()->findChild<QLabel*>("codeEmpty");
        QVERIFY(empty && empty->isVisible());
        QVERIFY(empty->text().contains("No code"));
        QVERIFY(v.stepBrowser()->toPlainText().contains("No verdict:"));
        QVERIFY(verdictHtml(std::nullopt, {}).contains("none was recorded"));
    }

    // A CPU verdict's tab says what was not checked there, and the error on each input distribution.
    void cpuVerdictShowsChecksNotRunAndDistributions()
    {
        Verdict v;
        v.status = VerdictStatus::IncorrectNumerical;
        v.evidence = {
            {"device", "cpu"},
            {"trials",
             QVariantList{QVariantMap{{"config", "small"}, {"seed", 3}, {"ok", true}},
                          QVariantMap{{"config", "small"}, {"seed", 4}, {"ok", false}, {"distribution", "x0.01"}}}},
            {"distributions",
             QVariantList{QVariantMap{{"name", "plain"}, {"trials", 1}, {"ok", true}, {"max_abs", 1e-7}},
                          QVariantMap{{"name", "x0.01"}, {"trials", 1}, {"ok", false}, {"max_abs", 0.004}}}},
            {"checks_not_run", QVariantList{QVariantMap{{"name", "runtime.side_stream"},
                                                        {"reason", "there are no streams on the CPU"}}}}};
        QTextDocument doc;
        doc.setHtml(verdictHtml(v, {}));
        const QString text = doc.toPlainText();
        QVERIFY2(text.contains("Not checked on the cpu") && text.contains("there are no streams on the CPU"),
                 qPrintable(text));
        QVERIFY2(text.contains("Input distributions") && text.contains("x0.01 inputs"), qPrintable(text));
    }

    void stepTabShowsTemplateGuidanceAndUsage()
    {
        const StepDetail best = test::demonstration("gelu-tanh").details[2];
        StepView v;
        v.setStep(best);
        const QString text = v.stepBrowser()->toPlainText();
        QVERIFY(text.contains("optimise"));
        QVERIFY(text.contains("elementwise-fusion, vectorised-access, integrity-rules"));
        QVERIFY(text.contains(QStringLiteral("%1 / %2").arg(best.step.tokensIn).arg(best.step.tokensOut)));
        QVERIFY(text.contains(QStringLiteral("%1 ms").arg(best.step.verifyMs)));
        QVERIFY(text.contains("block 1 of 1 (python)"));  // usage as the manual agent reported it
    }

    void conversationRendersMarkdownOrRaw()
    {
        const StepDetail step = test::demonstration("gelu-tanh").details[1];
        QVERIFY(step.step.reply.contains("```"));
        StepView v;
        v.setStep(step);
        ConversationPane* c = v.conversation();
        QVERIFY(!c->isRaw());
        QVERIFY(!c->replyBrowser()->toPlainText().contains("```"));  // the fence is rendered as a code block
        QVERIFY(c->replyBrowser()->toPlainText().contains("class ModelNew"));
        c->rawToggle()->click();
        QVERIFY(c->isRaw());
        QVERIFY(c->replyBrowser()->toPlainText().contains("```"));
        QCOMPARE(c->replyBrowser()->toPlainText(), step.step.reply);
        QCOMPARE(c->promptBrowser()->toPlainText(), step.step.prompt);
        v.setStep(test::demonstration("gelu-tanh").details[0]);  // the toggle stays for the next step
        QVERIFY(c->replyBrowser()->toPlainText().contains("```"));
        c->setRaw(false);
        QVERIFY(!c->replyBrowser()->toPlainText().contains("```"));
        QCOMPARE(c->messageList()->count(), 3);  // system, user, assistant on step 0
        QVERIFY(c->messageList()->item(0)->text().startsWith("system: "));
        c->setRaw(true);
        c->messageList()->setCurrentRow(2);  // the assistant's message: the reply
        QCOMPARE(c->messageBrowser()->toPlainText(), test::demonstration("gelu-tanh").details[0].step.reply);
    }

    void diffTabComparesWithThePreviousStepOrAPickedBase()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        StepView v;
        v.setStep(gelu.details[2]);
        QVERIFY(v.diffView()->hasChanges());
        v.diffView()->setMode(DiffView::Mode::Unified);
        QVERIFY(v.diffView()->unifiedEditor()->text().startsWith("--- step 2\n+++ step 3\n"));
        v.setDiffBase("step 1", gelu.details[0].step.code);
        QVERIFY(v.diffView()->unifiedEditor()->text().startsWith("--- step 1\n+++ step 3\n"));
        v.setDiffBase("step 3", gelu.details[2].step.code);
        QVERIFY(!v.diffView()->hasChanges());
        v.resetDiffBase();
        QVERIFY(v.diffView()->unifiedEditor()->text().startsWith("--- step 2\n"));
        v.setStep(gelu.details[0]);  // the first step: everything is added
        for (const DiffLine& l : v.diffView()->lines())
            QCOMPARE(int(l.kind), int(DiffLine::Kind::Added));
    }
    void aTabOpenedAfterTheSwitchShowsTheStep()
    {
        // Read through findChild, not the pane accessors (those fill their tab first): what a user sees on opening it.
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        StepView v;
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setCurrentIndex(StepView::StepTab);
        v.setStep(gelu.details[0]);
        v.setStep(gelu.details[2]);
        const StepDetail& shown = gelu.details[2];
        auto* info = v.findChild<QTextBrowser*>("stepInfoBrowser");
        QVERIFY(info->toPlainText().contains(shown.step.templateName));

        v.setCurrentIndex(StepView::VerdictTab);
        QVERIFY(v.findChild<QTextBrowser*>("verdictBrowser")->toPlainText().contains(shown.step.status));
        v.setCurrentIndex(StepView::CodeTab);
        QCOMPARE(v.findChild<QsciScintilla*>("stepCode")->text(), shown.step.code);
        v.setCurrentIndex(StepView::ConversationTab);
        QVERIFY(v.findChild<QTextBrowser*>("replyBrowser")->toPlainText().contains("class ModelNew"));
        QCOMPARE(v.findChild<QTextBrowser*>("promptBrowser")->toPlainText().isEmpty(), shown.step.prompt.isEmpty());

        // The Diff tab, in unified mode when the step came: both modes show this step against the previous one.
        auto* diff = v.findChild<DiffView*>();
        diff->setMode(DiffView::Mode::Unified);
        v.setStep(gelu.details[1]);
        v.setCurrentIndex(StepView::DiffTab);
        QVERIFY(v.findChild<QsciScintilla*>("diffUnified")->text().startsWith("--- step 1\n+++ step 2\n"));
        diff->setMode(DiffView::Mode::SideBySide);
        QCOMPARE(diff->lines().size(), diffLines(gelu.details[0].step.code, gelu.details[1].step.code).size());
        const QString right = v.findChild<QsciScintilla*>("diffNew")->text();
        QVERIFY(right.contains(gelu.details[1].step.code.section(QLatin1Char('\n'), 0, 0)));
        for (const QString& line : gelu.details[1].step.code.split(QLatin1Char('\n')))
            QVERIFY2(right.contains(line), qPrintable(line));
        for (const QString& line : gelu.details[0].step.code.split(QLatin1Char('\n')))
            QVERIFY2(v.findChild<QsciScintilla*>("diffOld")->text().contains(line), qPrintable(line));
    }
};

QTEST_MAIN(TestStepView)
#include "test_step_view.moc"
