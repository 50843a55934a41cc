// DiffView: a changed line's characters boxed on both sides (read back from the editors' indicator), removed and
// added lines on their backgrounds, filler lines that keep the two sides aligned, the side/unified toggle, the
// "no changes" state; and a diff of two demonstration steps.
#include "ReplayFixture.h"
#include "replay/DiffView.h"
#include "views/Qsci.h"

#include <QLabel>
#include <QSignalSpy>

using namespace km;
using namespace km::replay;

namespace {
// Whether the changed-character indicator covers column `column` (ASCII) of editor row `row`.
bool boxed(QsciScintilla* e, int row, int column)
{
    const long pos = e->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, row) + column;
    return e->SendScintilla(QsciScintilla::SCI_INDICATORVALUEAT, DiffView::kChangedIndicator, pos) != 0;
}

bool hasMarker(QsciScintilla* e, int row, int marker)
{
    return (unsigned(e->markersAtLine(row)) & (1u << marker)) != 0;
}
}  // namespace

class TestDiffView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void changedCharactersAreBoxedOnBothSides()
    {
        DiffView v;
        v.setTexts("old", "a\nx = 1 + 2\nc\n", "new", "a\nx = 1 * 2\nc\n");
        QVERIFY(v.hasChanges());
        QCOMPARE(v.highlights().size(), 2);
        const DiffView::Highlight oldH = v.highlights()[0];
        const DiffView::Highlight newH = v.highlights()[1];
        QCOMPARE(int(oldH.side), int(DiffView::Side::Old));
        QCOMPARE(oldH.row, 1);
        QCOMPARE(oldH.start, 6);
        QCOMPARE(oldH.length, 1);
        QCOMPARE(int(newH.side), int(DiffView::Side::New));
        QCOMPARE(newH.start, 6);
        QVERIFY(boxed(v.oldEditor(), 1, 6));
        QVERIFY(boxed(v.newEditor(), 1, 6));
        QVERIFY(!boxed(v.oldEditor(), 1, 5));
        QVERIFY(!boxed(v.newEditor(), 1, 0));
        QVERIFY(!boxed(v.oldEditor(), 0, 0));
        QVERIFY(hasMarker(v.oldEditor(), 1, DiffView::kRemovedMarker));
        QVERIFY(hasMarker(v.newEditor(), 1, DiffView::kAddedMarker));
        QVERIFY(!hasMarker(v.oldEditor(), 0, DiffView::kRemovedMarker));
        QVERIFY(!hasMarker(v.newEditor(), 2, DiffView::kAddedMarker));
    }

    void fillerLinesKeepTheSidesAligned()
    {
        DiffView v;
        v.setTexts("old", "a\nb\nc\nd\n", "new", "a\nB\nd\ne\nf\n");  // b,c -> B; e, f added
        QCOMPARE(v.oldEditor()->lines(), v.newEditor()->lines());
        QCOMPARE(v.rowOf(DiffView::Side::Old, 4), v.rowOf(DiffView::Side::New, 3));  // "d" opposite "d"
        QCOMPARE(v.oldEditor()->text(v.rowOf(DiffView::Side::Old, 4)).trimmed(), QString("d"));
        QCOMPARE(v.rowOf(DiffView::Side::Old, 3), 2);
        QVERIFY(hasMarker(v.newEditor(), 2, DiffView::kFillerMarker));  // opposite the removed "c"
        QVERIFY(hasMarker(v.oldEditor(), v.rowOf(DiffView::Side::New, 4), DiffView::kFillerMarker));
        QCOMPARE(v.rowOf(DiffView::Side::Old, 9), -1);
    }

    void toggleSwitchesBetweenSideBySideAndUnified()
    {
        DiffView v;
        v.resize(800, 400);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        const QString a = "def f():\n    return 1\n", b = "def f():\n    return 2\n";
        v.setTexts("step 1", a, "step 2", b);
        QSignalSpy changed(&v, &DiffView::modeChanged);
        QCOMPARE(int(v.mode()), int(DiffView::Mode::SideBySide));
        QVERIFY(v.oldEditor()->isVisible());
        QVERIFY(!v.unifiedEditor()->isVisible());
        v.toggleMode();
        QCOMPARE(int(v.mode()), int(DiffView::Mode::Unified));
        QCOMPARE(changed.size(), 1);
        QVERIFY(v.unifiedEditor()->isVisible());
        QVERIFY(!v.oldEditor()->isVisible());
        QCOMPARE(v.unifiedEditor()->text(), unifiedDiff(a, b, 3, "step 1", "step 2"));
        // ---, +++, @@, " def f():", then "-    return 1" and "+    return 2"
        QVERIFY(hasMarker(v.unifiedEditor(), 2, DiffView::kFillerMarker));
        QVERIFY(!hasMarker(v.unifiedEditor(), 3, DiffView::kRemovedMarker));
        QVERIFY(hasMarker(v.unifiedEditor(), 4, DiffView::kRemovedMarker));
        QVERIFY(hasMarker(v.unifiedEditor(), 5, DiffView::kAddedMarker));
        QVERIFY(!hasMarker(v.unifiedEditor(), 0, DiffView::kRemovedMarker));  // the "--- step 1" label line
        QVERIFY(boxed(v.unifiedEditor(), 4, 12));                             // "-    return 1": the 1
        QVERIFY(boxed(v.unifiedEditor(), 5, 12));
        QVERIFY(!boxed(v.unifiedEditor(), 4, 11));
        QVERIFY(!boxed(v.unifiedEditor(), 3, 1));
        v.toggleMode();
        QCOMPARE(int(v.mode()), int(DiffView::Mode::SideBySide));
        QVERIFY(v.newEditor()->isVisible());
    }

    void equalTextsSayNoChanges()
    {
        DiffView v;
        v.resize(600, 300);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setTexts("a", "same\n", "b", "same\n");
        QVERIFY(!v.hasChanges());
        auto* label = v.findChild<QLabel*>("diffNoChanges");
        QVERIFY(label && label->isVisible());
        QVERIFY(label->text().contains("No changes"));
        v.toggleMode();
        QVERIFY(label->isVisible());  // in either mode
        v.setTexts("a", "same\n", "b", "other\n");
        QVERIFY(!label->isVisible());
    }

    void demonstrationRepairDiffsAgainstTheCompileError()
    {
        const test::ReplayRun gelu = test::demonstration("gelu-tanh");
        const StepDetail& repair = gelu.details[1];
        DiffView v;
        v.setTexts("step 1", repair.previousCode, "step 2", repair.step.code);
        QVERIFY(v.hasChanges());
        QVERIFY(!v.highlights().isEmpty());
        int removed = 0, added = 0;
        for (const DiffLine& l : v.lines()) {
            removed += l.kind == DiffLine::Kind::Removed;
            added += l.kind == DiffLine::Kind::Added;
        }
        QVERIFY(removed > 0 && added > 0);
        // The unified text is what the trajectory recorded as the step's diff (hunks only).
        QCOMPARE(unifiedDiff(repair.previousCode, repair.step.code).isEmpty(), repair.step.diff.isEmpty());
    }
};

QTEST_MAIN(TestDiffView)
#include "test_diff_view.moc"
