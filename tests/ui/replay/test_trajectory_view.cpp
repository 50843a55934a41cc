// TrajectoryView driven by keyboard on the shipped demonstrations (a stand-in answers stepRequested with the
// step's detail, as the controller would): next/previous/first/last, the diff mode toggle, the compared-step
// chooser, the copy link, a live run that grows, a stale answer; and CompareView of two runs and two solutions.
#include "ReplayFixture.h"
#include "replay/ArrivingReply.h"
#include "replay/CompareView.h"
#include "replay/DiffView.h"
#include "replay/SpeedupChart.h"
#include "replay/StepChooser.h"
#include "replay/StepTimeline.h"
#include "replay/StepView.h"
#include "replay/TrajectoryView.h"
#include "views/Qsci.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTableWidget>

using namespace km;
using namespace km::replay;

namespace {
// Answers the view's requests from the run's values, like the ReplayController over the store.
void answerRequests(TrajectoryView& v, const test::ReplayRun& run)
{
    QObject::connect(&v, &TrajectoryView::stepRequested, &v, [&v, run](int idx) {
        for (const StepDetail& d : run.details)
            if (d.step.idx == idx)
                v.setStep(d);
    });
    QObject::connect(&v, &TrajectoryView::comparedStepRequested, &v, [&v, run](qint64 id) {
        for (const StepDetail& d : run.details)
            if (d.step.id == id)
                v.setComparedCode(id, d.step.code);
    });
}
}  // namespace

class TestTrajectoryView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void actionsCarryTheKeys()
    {
        TrajectoryView v;
        QCOMPARE(v.objectName(), QString("trajectoryView"));
        const QList<std::pair<QString, QList<QKeySequence>>> expected = {
            {"nextStep", {QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_J)}},
            {"previousStep", {QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_K)}},
            {"firstStep", {QKeySequence(Qt::Key_Home)}},
            {"lastStep", {QKeySequence(Qt::Key_End)}},
            {"toggleDiffMode", {QKeySequence(Qt::Key_D)}},
            {"chooseComparedStep", {QKeySequence(Qt::Key_C)}},
            {"copyLink", {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)}},
        };
        QCOMPARE(v.actions().size(), expected.size());
        for (const auto& [name, keys] : expected) {
            QAction* a = v.action(name);
            QVERIFY2(a, qPrintable(name));
            QCOMPARE(a->shortcuts(), keys);
            QVERIFY(!a->text().isEmpty());
        }
    }

    // The header says where a fork came from and why a run failed, in plain text.
    void headerShowsForkOriginAndFailure()
    {
        test::ReplayRun gelu = test::demonstration("gelu-tanh");
        TrajectoryView v;
        v.setRun(gelu.summary, gelu.steps);
        const auto* header = v.findChild<QLabel*>("trajectoryHeader");
        QVERIFY(!header->text().contains("forked"));
        QVERIFY(!header->text().contains("Failed"));
        gelu.summary.forkedFrom = 4;
        gelu.summary.forkedSteps = 2;
        gelu.summary.state = RunState::Failed;
        gelu.summary.error = QStringLiteral("The endpoint refused the API key (HTTP 401) <check it>");
        v.setRun(gelu.summary, gelu.steps);
        QVERIFY2(header->text().contains("forked from run 4 after step 2"), qPrintable(header->text()));
        QVERIFY2(header->text().contains("\nFailed: The endpoint refused the API key (HTTP 401/403): check the "
                                         "provider's key — The endpoint refused the API key (HTTP 401) <check it>"),
                 qPrintable(header->text()));
        QCOMPARE(header->textFormat(), Qt::PlainText);
    }

    void keyboardWalksTheSteps()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        TrajectoryView v;
        answerRequests(v, gelu);
        v.resize(1000, 700);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setRun(gelu.summary, gelu.steps);
        QCOMPARE(v.currentIdx(), -1);
        QVERIFY(v.findChild<QLabel*>("trajectoryHeader")->text().contains("gelu-tanh"));
        QSignalSpy requested(&v, &TrajectoryView::stepRequested);
        v.timeline()->setFocus();
        QTRY_VERIFY(v.timeline()->hasFocus());

        const auto press = [&](int key) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key(key));
            return requested.isEmpty() ? -100 : requested.takeLast().at(0).toInt();
        };
        QCOMPARE(press(Qt::Key_J), 0);  // no step yet: the first
        QCOMPARE(v.stepView()->step().step.idx, 0);
        QCOMPARE(press(Qt::Key_Right), 1);
        QCOMPARE(v.stepView()->step().step.status, QString("PASSED"));
        QCOMPARE(press(Qt::Key_End), 2);
        QCOMPARE(v.timeline()->currentIdx(), 2);
        QCOMPARE(v.chart()->currentIdx(), 2);
        QCOMPARE(press(Qt::Key_J), 2);  // stays on the last
        QCOMPARE(press(Qt::Key_K), 1);
        QCOMPARE(press(Qt::Key_Home), 0);
        QCOMPARE(press(Qt::Key_Left), 0);
        QCOMPARE(v.stepView()->step().step.status, QString("COMPILE_ERROR"));
        QCOMPARE(requested.size(), 0);  // one request per key

        QCOMPARE(int(v.stepView()->diffView()->mode()), int(DiffView::Mode::SideBySide));
        press(Qt::Key_D);
        QCOMPARE(int(v.stepView()->diffView()->mode()), int(DiffView::Mode::Unified));
        press(Qt::Key_D);
        QCOMPARE(int(v.stepView()->diffView()->mode()), int(DiffView::Mode::SideBySide));

        // A click on the chart and one on the timeline ask for their step too.
        QTest::mouseClick(v.timeline(), Qt::LeftButton, {}, v.timeline()->markRect(1).center());
        QCOMPARE(requested.takeLast().at(0).toInt(), 1);
        QTest::mouseClick(v.chart()->viewport(), Qt::LeftButton, {}, v.chart()->pointPosition(2));
        QCOMPARE(requested.takeLast().at(0).toInt(), 2);
        QCOMPARE(v.stepView()->step().step.idx, 2);
    }

    void chooserPicksTheComparedStep()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        TrajectoryView v;
        answerRequests(v, gelu);
        v.resize(1000, 700);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setRun(gelu.summary, gelu.steps);
        v.lastStep();
        QSignalSpy wanted(&v, &TrajectoryView::comparedStepRequested);
        v.timeline()->setFocus();
        QTest::keyClick(v.timeline(), Qt::Key_C);
        StepChooser* chooser = nullptr;
        QTRY_VERIFY((chooser = v.findChild<StepChooser*>()) && chooser->isVisible());
        QCOMPARE(chooser->list()->count(), 4);  // "the previous step" and the three steps
        QCOMPARE(chooser->list()->currentRow(), 0);
        chooser->list()->setCurrentRow(1);  // step 1, the compile error
        QTest::keyClick(chooser->list(), Qt::Key_Return);
        QCOMPARE(wanted.size(), 1);
        QCOMPARE(wanted.at(0).at(0).toLongLong(), gelu.details[0].step.id);
        QCOMPARE(v.comparedStepId(), gelu.details[0].step.id);
        QCOMPARE(v.stepView()->currentIndex(), int(StepView::DiffTab));
        DiffView* diff = v.stepView()->diffView();
        diff->setMode(DiffView::Mode::Unified);
        QVERIFY(diff->unifiedEditor()->text().startsWith("--- step 1\n+++ step 3\n"));
        v.previousStep();  // the picked base stays while stepping
        QVERIFY(diff->unifiedEditor()->text().startsWith("--- step 1\n+++ step 2\n"));
        v.setComparedCode(gelu.details[2].step.id, "stale");  // not the compared step: dropped
        QVERIFY(diff->unifiedEditor()->text().startsWith("--- step 1\n+++ step 2\n"));
        v.compareWith(0);  // back to the previous step
        QCOMPARE(wanted.size(), 1);
        QVERIFY(diff->unifiedEditor()->text().startsWith("--- step 1\n+++ step 2\n"));
        v.nextStep();
        QVERIFY(diff->unifiedEditor()->text().startsWith("--- step 2\n+++ step 3\n"));
    }

    void copyLinkNamesTheRunAndStep()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        TrajectoryView v;
        answerRequests(v, gelu);
        QVERIFY(v.linkText().isEmpty());
        v.setRun(gelu.summary, gelu.steps);
        QCOMPARE(v.linkText(), QStringLiteral("kmosaic-workbench --open run/%1").arg(gelu.summary.id));
        v.goToStep(2);  // the third step: links count from 1
        QCOMPARE(v.linkText(), QStringLiteral("kmosaic-workbench --open run/%1/step/3").arg(gelu.summary.id));
        v.action("copyLink")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), v.linkText());
    }

    void liveRunKeepsTheCurrentStepAndStaleAnswersAreDropped()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        TrajectoryView v;
        answerRequests(v, gelu);
        v.setRun(gelu.summary, gelu.steps.mid(0, 2));  // the run while it had two steps
        v.goToStep(1);
        QCOMPARE(v.stepView()->step().step.idx, 1);
        RunSummary grown = gelu.summary;
        v.setRun(grown, gelu.steps);
        QCOMPARE(v.currentIdx(), 1);
        QCOMPARE(v.timeline()->steps().size(), 3);
        QCOMPARE(v.timeline()->currentIdx(), 1);
        QCOMPARE(v.stepView()->step().step.idx, 1);

        const test::ReplayRun rms = test::demonstration("rmsnorm");
        v.setRun(rms.summary, rms.steps);  // another run: nothing current
        QCOMPARE(v.currentIdx(), -1);
        QVERIFY(!v.stepView()->hasStep());
        v.setStep(gelu.details[2]);  // an answer for the run left
        QVERIFY(!v.stepView()->hasStep());
        QCOMPARE(v.currentIdx(), -1);
    }

    // A live run's next reply shows as it streams in, and goes once its step is recorded or another run opens.
    void anArrivingReplyShowsUntilItsStepIsRecorded()
    {
        test::ReplayRun gelu = test::demonstration("gelu-tanh");
        gelu.summary.state = RunState::Running;
        TrajectoryView v;
        ArrivingReply* arriving = v.arrivingReply();
        QCOMPARE(arriving->objectName(), QString("arrivingReply"));
        v.setRun(gelu.summary, gelu.steps.mid(0, 2));
        QVERIFY(arriving->isHidden());
        v.showArrivingReply(2, QStringLiteral("The kernel fuses"));
        QVERIFY(!arriving->isHidden());
        QCOMPARE(arriving->stepIdx(), 2);
        QCOMPARE(arriving->text(), QString("The kernel fuses"));
        const auto* label = arriving->findChild<QLabel*>("arrivingReplyLabel");
        QVERIFY2(label->text().contains("Step 3") && label->text().contains("16 characters"),
                 qPrintable(label->text()));
        v.showArrivingReply(2, QStringLiteral("The kernel fuses the tanh"));
        QCOMPARE(arriving->text(), QString("The kernel fuses the tanh"));
        v.showArrivingReply(1, QStringLiteral("late chunk of a recorded step"));
        QCOMPARE(arriving->stepIdx(), 2);
        QCOMPARE(arriving->text(), QString("The kernel fuses the tanh"));

        v.setRun(gelu.summary, gelu.steps.mid(0, 2));  // a refresh without the step: still arriving
        QVERIFY(!arriving->isHidden());
        v.setRun(gelu.summary, gelu.steps);  // step 3 recorded with its whole reply
        QVERIFY(arriving->isHidden());
        QCOMPARE(arriving->stepIdx(), -1);

        v.setRun(gelu.summary, gelu.steps.mid(0, 2));
        v.showArrivingReply(2, QStringLiteral("again"));
        QVERIFY(!arriving->isHidden());
        RunSummary cancelled = gelu.summary;
        cancelled.state = RunState::Cancelled;
        v.setRun(cancelled, gelu.steps.mid(0, 2));  // ended while the reply arrived: it never will
        QVERIFY(arriving->isHidden());
        v.showArrivingReply(2, QStringLiteral("a chunk after the end"));
        QVERIFY(arriving->isHidden());

        const test::ReplayRun rms = test::demonstration("rmsnorm");
        v.setRun(gelu.summary, gelu.steps.mid(0, 2));
        v.showArrivingReply(2, QStringLiteral("again"));
        v.setRun(rms.summary, rms.steps);  // another run opened
        QVERIFY(arriving->isHidden());
        v.showArrivingReply(int(rms.steps.size()) - 1, QStringLiteral("for a step rmsnorm has"));
        QVERIFY(arriving->isHidden());
    }

    void aLongRunScrollsTheTimelineToTheCurrentStep()
    {
        test::ReplayRun run = test::demonstration("gelu-tanh");
        QList<StepSummary> many;
        for (int i = 0; i < 80; ++i) {
            StepSummary s = run.steps[i % 3];
            s.idx = i;
            s.id = 1000 + i;
            many << s;
        }
        TrajectoryView v;
        v.resize(800, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setRun(run.summary, many);
        auto* scroll = v.findChild<QScrollArea*>();
        QVERIFY(scroll);
        QVERIFY(v.timeline()->width() > scroll->viewport()->width());
        v.lastStep();
        QCOMPARE(v.currentIdx(), 79);
        const QRect mark = v.timeline()->markRect(79);
        const QPoint inViewport = v.timeline()->mapTo(scroll->viewport(), mark.center());
        QVERIFY(scroll->viewport()->rect().contains(inViewport));
    }

    void compareViewAlignsTwoRunsByStage()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");  // implement, repair, optimise
        const test::ReplayRun rowSum = test::demonstration("row-sum");  // implement, implement
        CompareView c;
        QAbstractItemModelTester tester(c.stepTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        c.setRuns(gelu.summary, gelu.steps, gelu.details.last().step.code, rowSum.summary, rowSum.steps,
                  rowSum.details.last().step.code);
        QTableWidget* t = c.stepTable();
        QCOMPARE(t->rowCount(), 4);  // implement 1, implement 2, repair 1, optimise 1
        const auto at = [t](int r, int col) {
            return t->item(r, col)->text();
        };
        QCOMPARE(at(0, CompareView::StageColumn), QString("implement"));
        QCOMPARE(at(0, CompareView::StatusA), QString("COMPILE_ERROR"));
        QCOMPARE(at(0, CompareView::StatusB), QString("no verdict"));
        QCOMPARE(at(1, CompareView::OrdinalColumn), QString("2"));
        QCOMPARE(at(1, CompareView::StatusA), QString("—"));
        QCOMPARE(at(1, CompareView::StatusB), QString("PASSED"));
        QCOMPARE(at(1, CompareView::SpeedupB), QString("1.04x"));
        QCOMPARE(at(2, CompareView::StageColumn), QString("repair"));
        QCOMPARE(at(3, CompareView::SpeedupA), QString("9.79x"));
        QVERIFY(c.summaryLabel()->text().contains("best speedup B − A: -8.76x"));
        QVERIFY(c.diffView()->hasChanges());

        const test::ReplayRun rms = test::demonstration("rmsnorm");
        c.setRuns(gelu.summary, gelu.steps, {}, rms.summary, rms.steps, {});
        QCOMPARE(t->rowCount(), 3);
        QCOMPARE(at(0, CompareView::SpeedupDelta), QString());  // the compile error has no speedup
        QCOMPARE(at(1, CompareView::SpeedupDelta), QString("-2.48x"));
        QVERIFY(!c.diffView()->hasChanges());
    }

    void compareViewOfTwoSolutions()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        CompareView c;
        QAbstractItemModelTester tester(c.stepTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        c.setSolutions({11, "gelu-tanh", "PASSED", 6.327, gelu.details[1].step.code},
                       {12, "gelu-tanh", "PASSED", 9.793, gelu.details[2].step.code});
        QCOMPARE(c.stepTable()->rowCount(), 1);
        QCOMPARE(c.stepTable()->item(0, CompareView::SpeedupDelta)->text(), QString("+3.47x"));
        QVERIFY(c.summaryLabel()->text().contains("solution 11 of gelu-tanh"));
        QVERIFY(c.diffView()->hasChanges());
        QCOMPARE(speedupDelta(std::nullopt, 2.0), QString());
    }
};

QTEST_MAIN(TestTrajectoryView)
#include "test_trajectory_view.moc"
