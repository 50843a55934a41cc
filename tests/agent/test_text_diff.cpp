// The line diff recorded in trajectories: rows compared with the output of GNU `diff -U<n>` (recorded), and a
// property test over random texts: the diff applies back to the new text and has the minimal number of edits.
#include "agent/TextDiff.h"

#include <QRandomGenerator>
#include <QRegularExpression>
#include <QtTest>
#include <vector>

using namespace km;

namespace {

QStringList linesOf(const QString& s)
{
    QStringList l = s.split('\n');
    if (s.isEmpty() || s.endsWith('\n'))
        l.removeLast();
    return l;
}

// Applies unified-diff hunks to `old`, checking every context and deleted line against it; nullopt on a mismatch.
std::optional<QString> applyDiff(const QString& old, const QString& diff)
{
    struct Line {
        QString text;
        bool noEol = false;
    };
    const QStringList a = linesOf(old);
    const bool oldNoEol = !old.isEmpty() && !old.endsWith('\n');
    QList<Line> out;
    int pos = 0;  // next line of a to copy
    const auto copyUpTo = [&](int end) {
        for (; pos < end; ++pos)
            out.append({a[pos], oldNoEol && pos + 1 == a.size()});
    };
    static const QRegularExpression header("^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@$");
    const QStringList d = linesOf(diff);
    char last = 0;
    bool inHunk = false;
    for (const QString& l : d) {
        if (const auto m = header.match(l); m.hasMatch()) {
            const int oldStart = m.captured(1).toInt();
            const int first = m.captured(2) == "0" ? oldStart : oldStart - 1;  // 0-based first old line
            if (first < pos || first > a.size())
                return std::nullopt;
            copyUpTo(first);
            last = 0;
            inHunk = true;
        } else if (l == "\\ No newline at end of file") {
            if (last == ' ' || last == '+')
                out.last().noEol = true;
        } else if (!l.isEmpty() && QString(" -+").contains(l.at(0)) && inHunk) {
            last = l.at(0).toLatin1();
            if (last != '+' && (pos >= a.size() || a[pos++] != l.mid(1)))
                return std::nullopt;
            if (last != '-')
                out.append({l.mid(1), false});
        } else {
            return std::nullopt;
        }
    }
    copyUpTo(int(a.size()));
    QString text;
    for (const Line& l : out)
        text += l.text + (l.noEol ? QString() : QStringLiteral("\n"));
    return text;
}

int minimalEdits(const QStringList& a, const QStringList& b)
{
    std::vector<std::vector<int>> lcs(size_t(a.size() + 1), std::vector<int>(size_t(b.size() + 1), 0));
    for (int i = int(a.size()) - 1; i >= 0; --i)
        for (int j = int(b.size()) - 1; j >= 0; --j)
            lcs[size_t(i)][size_t(j)] = a[i] == b[j]
                                            ? lcs[size_t(i + 1)][size_t(j + 1)] + 1
                                            : qMax(lcs[size_t(i + 1)][size_t(j)], lcs[size_t(i)][size_t(j + 1)]);
    return int(a.size() + b.size()) - 2 * lcs[0][0];
}

int editsIn(const QString& diff)
{
    int n = 0;
    for (const QString& l : linesOf(diff))
        n += (l.startsWith('+') || l.startsWith('-')) ? 1 : 0;
    return n;
}

}  // namespace

class TestTextDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void recordedRows_data()
    {
        QTest::addColumn<QString>("oldText");
        QTest::addColumn<QString>("newText");
        QTest::addColumn<int>("context");
        QTest::addColumn<QString>("expected");  // diff -U<context> old new, without the file header
        QTest::newRow("identical") << QStringLiteral("a\nb\n") << QStringLiteral("a\nb\n") << 3 << QStringLiteral("");
        QTest::newRow("empty old") << QStringLiteral("") << QStringLiteral("a\nb\nc\n") << 3
                                   << QStringLiteral("@@ -0,0 +1,3 @@\n+a\n+b\n+c\n");
        QTest::newRow("empty new") << QStringLiteral("a\nb\n") << QStringLiteral("") << 3
                                   << QStringLiteral("@@ -1,2 +0,0 @@\n-a\n-b\n");
        QTest::newRow("insert at start") << QStringLiteral("b\nc\nd\ne\nf\n") << QStringLiteral("a\nb\nc\nd\ne\nf\n")
                                         << 3 << QStringLiteral("@@ -1,3 +1,4 @@\n+a\n b\n c\n d\n");
        QTest::newRow("insert at end") << QStringLiteral("a\nb\nc\nd\ne\n") << QStringLiteral("a\nb\nc\nd\ne\nf\n") << 3
                                       << QStringLiteral("@@ -3,3 +3,4 @@\n c\n d\n e\n+f\n");
        QTest::newRow("change in middle")
            << QStringLiteral("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n") << QStringLiteral("1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n")
            << 3 << QStringLiteral("@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
        QTest::newRow("two distant changes")
            << QStringLiteral("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n")
            << QStringLiteral("1\n2\nx\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\nx\n18\n19\n20\n") << 3
            << QStringLiteral("@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+x\n 4\n 5\n 6\n@@ -14,7 +14,7 @@\n 14\n 15\n "
                              "16\n-17\n+x\n 18\n 19\n 20\n");
        QTest::newRow("two close changes")
            << QStringLiteral("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n")
            << QStringLiteral("1\n2\n3\n4\nx\n6\n7\n8\n9\n10\nx\n12\n13\n14\n15\n16\n17\n18\n19\n20\n") << 3
            << QStringLiteral("@@ -2,13 +2,13 @@\n 2\n 3\n 4\n-5\n+x\n 6\n 7\n 8\n 9\n 10\n-11\n+x\n 12\n 13\n 14\n");
        QTest::newRow("no newline added")
            << QStringLiteral("a\nb") << QStringLiteral("a\nb\n") << 3
            << QStringLiteral("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
        QTest::newRow("no newline removed")
            << QStringLiteral("a\nb\n") << QStringLiteral("a\nb") << 3
            << QStringLiteral("@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
        QTest::newRow("no newline both")
            << QStringLiteral("a\nb") << QStringLiteral("a\nc") << 3
            << QStringLiteral(
                   "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
        QTest::newRow("no newline context")
            << QStringLiteral("a\nb\nc") << QStringLiteral("x\nb\nc") << 3
            << QStringLiteral("@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n\\ No newline at end of file\n");
        QTest::newRow("context 0") << QStringLiteral("1\n2\n3\n4\n5\n") << QStringLiteral("1\n2\nx\n4\n5\n") << 0
                                   << QStringLiteral("@@ -3 +3 @@\n-3\n+x\n");
        QTest::newRow("context 0 insert") << QStringLiteral("1\n2\n3\n") << QStringLiteral("1\n2\nnew\n3\n") << 0
                                          << QStringLiteral("@@ -2,0 +3 @@\n+new\n");
        QTest::newRow("context 1") << QStringLiteral("1\n2\n3\n4\n5\n6\n7\n") << QStringLiteral("1\nx\n3\n4\n5\ny\n7\n")
                                   << 1
                                   << QStringLiteral(
                                          "@@ -1,3 +1,3 @@\n 1\n-2\n+x\n 3\n@@ -5,3 +5,3 @@\n 5\n-6\n+y\n 7\n");
        QTest::newRow("delete middle") << QStringLiteral("a\nb\nc\nd\ne\n") << QStringLiteral("a\nb\nd\ne\n") << 3
                                       << QStringLiteral("@@ -1,5 +1,4 @@\n a\n b\n-c\n d\n e\n");
        QTest::newRow("replace all") << QStringLiteral("a\nb\n") << QStringLiteral("c\nd\ne\n") << 3
                                     << QStringLiteral("@@ -1,2 +1,3 @@\n-a\n-b\n+c\n+d\n+e\n");
    }

    void recordedRows()
    {
        QFETCH(QString, oldText);
        QFETCH(QString, newText);
        QFETCH(int, context);
        QFETCH(QString, expected);
        const QString diff = unifiedDiff(oldText, newText, context);
        QCOMPARE(diff, expected);
        const auto applied = applyDiff(oldText, diff);
        QVERIFY(applied.has_value());
        QCOMPARE(*applied, newText);
    }

    // A move has two minimal scripts; any one of them will do, as long as it is minimal and applies.
    void movedBlock()
    {
        const QString a = "a\nb\nc\nd\ne\nf\n", b = "d\ne\nf\na\nb\nc\n";
        const QString diff = unifiedDiff(a, b);
        QCOMPARE(editsIn(diff), 6);
        QCOMPARE(applyDiff(a, diff).value_or("<no>"), b);
    }

    void labels()
    {
        QCOMPARE(unifiedDiff("a\n", "b\n", 3, "v1/solution.py", "v2/solution.py"),
                 QStringLiteral("--- v1/solution.py\n+++ v2/solution.py\n@@ -1 +1 @@\n-a\n+b\n"));
        QCOMPARE(unifiedDiff("a\n", "a\n", 3, "x", "y"), QString());  // no change, no header
        QCOMPARE(unifiedDiff("a\n", "b\n", -5), unifiedDiff("a\n", "b\n", 0));
    }

    void crlfIsContent()
    {
        QCOMPARE(unifiedDiff("a\r\nb\r\n", "a\r\nb\r\n"), QString());
        QCOMPARE(unifiedDiff("a\r\n", "a\n"), QStringLiteral("@@ -1 +1 @@\n-a\r\n+a\n"));
    }

    void randomTextsAreMinimalAndApply()
    {
        QRandomGenerator rng(20240611);
        const QStringList alphabet{"x = 1", "y = 2", "return x", "", "    pass", "}", "z"};
        for (int round = 0; round < 400; ++round) {
            auto make = [&](int maxLen) {
                QStringList l;
                const int n = int(rng.bounded(maxLen + 1));
                for (int i = 0; i < n; ++i)
                    l << alphabet[int(rng.bounded(int(alphabet.size())))];
                QString s = l.join('\n');
                if (!l.isEmpty() && rng.bounded(4) != 0)
                    s += '\n';
                return s;
            };
            const QString a = make(round < 200 ? 12 : 60);
            const QString b = rng.bounded(3) == 0 ? a : make(round < 200 ? 12 : 60);
            const int context = int(rng.bounded(5));
            const QString diff = unifiedDiff(a, b, context);
            const auto applied = applyDiff(a, diff);
            QVERIFY2(applied.has_value(), qPrintable(QString("round %1\n%2").arg(round).arg(diff)));
            QCOMPARE(*applied, b);
            if (a == b)
                QVERIFY(diff.isEmpty());
            // Minimal over lines, where a last line without '\n' counts as a different line.
            QStringList la = linesOf(a), lb = linesOf(b);
            if (!a.isEmpty() && !a.endsWith('\n'))
                la.last() += QChar(0x2400);
            if (!b.isEmpty() && !b.endsWith('\n'))
                lb.last() += QChar(0x2400);
            QCOMPARE(editsIn(diff), minimalEdits(la, lb));
        }
    }

    void diffLinesNumberBothSides()
    {
        const QList<DiffLine> l = diffLines("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
        using K = DiffLine::Kind;
        const QList<DiffLine> expected{{K::Equal, 1, 1}, {K::Removed, 2, 0}, {K::Added, 0, 2},
                                       {K::Equal, 3, 3}, {K::Equal, 4, 4},   {K::Added, 0, 5}};
        QCOMPARE(l.size(), expected.size());
        for (qsizetype i = 0; i < l.size(); ++i)
            QVERIFY2(l[i] == expected[i], qPrintable(QStringLiteral("line %1").arg(i)));
        QVERIFY(diffLines({}, {}).isEmpty());
        QCOMPARE(diffLines("x", "x\n").size(), 2);  // a last line without '\n' is another line
    }

    void diffLinesRebuildBothTextsAndAgreeWithUnified()
    {
        QRandomGenerator rng(19);
        for (int round = 0; round < 200; ++round) {
            QStringList a, b;
            const int n = int(rng.bounded(30)), m = int(rng.bounded(30));
            for (int i = 0; i < n; ++i)
                a << QString::number(rng.bounded(6));
            for (int i = 0; i < m; ++i)
                b << QString::number(rng.bounded(6));
            const QString ta = a.join('\n') + (n ? "\n" : ""), tb = b.join('\n') + (m ? "\n" : "");
            QStringList oldBack, newBack;
            int edits = 0;
            for (const DiffLine& l : diffLines(ta, tb)) {
                if (l.kind != DiffLine::Kind::Added)
                    oldBack << a[l.oldLine - 1];
                if (l.kind != DiffLine::Kind::Removed)
                    newBack << b[l.newLine - 1];
                if (l.kind == DiffLine::Kind::Equal)
                    QCOMPARE(a[l.oldLine - 1], b[l.newLine - 1]);
                else
                    ++edits;
            }
            QCOMPARE(oldBack, a);
            QCOMPARE(newBack, b);
            QCOMPARE(edits, editsIn(unifiedDiff(ta, tb)));
        }
    }

    void changedSpansMarkTheChangedCharacters()
    {
        DiffSpans s = changedSpans("y = a + b", "y = a * b");
        QCOMPARE(s.oldSpans.size(), 1);
        QCOMPARE(s.newSpans.size(), 1);
        QCOMPARE(s.oldSpans[0].start, 6);
        QCOMPARE(s.oldSpans[0].length, 1);
        QCOMPARE(s.newSpans[0].start, 6);
        QCOMPARE(s.newSpans[0].length, 1);

        s = changedSpans("block = 256", "block = 1024;");  // "256" -> "1024;": a common '2' splits nothing away
        QString removed, added;
        for (const DiffSpan& sp : s.oldSpans)
            removed += QString("block = 256").mid(sp.start, sp.length);
        for (const DiffSpan& sp : s.newSpans)
            added += QString("block = 1024;").mid(sp.start, sp.length);
        QCOMPARE(removed.size() + added.size(), 6);  // minimal: keep "2", drop "56", add "10" "4;"
        QVERIFY(!removed.contains('b') && !added.contains('='));

        s = changedSpans("same", "same");
        QVERIFY(s.oldSpans.isEmpty() && s.newSpans.isEmpty());
        s = changedSpans("", "new");
        QVERIFY(s.oldSpans.isEmpty());
        QCOMPARE(s.newSpans.size(), 1);
        QCOMPARE(s.newSpans[0].length, 3);
    }

    void largeInputsStayFast()
    {
        QStringList a, b;
        for (int i = 0; i < 20000; ++i) {
            a << QString::number(i);
            b << (i % 7 == 0 ? QStringLiteral("changed %1").arg(i) : QString::number(i));
        }
        b.insert(100, "inserted");
        const QString diff = unifiedDiff(a.join('\n') + '\n', b.join('\n') + '\n');
        QCOMPARE(editsIn(diff), 2 * ((20000 + 6) / 7) + 1);
        QCOMPARE(applyDiff(a.join('\n') + '\n', diff).value_or("<no>"), b.join('\n') + '\n');
        QStringList c;
        for (int i = 0; i < 5000; ++i)
            c << QStringLiteral("other %1").arg(i);
        QCOMPARE(editsIn(unifiedDiff(a.join('\n') + '\n', c.join('\n') + '\n')), 25000);  // nothing in common
    }
};

QTEST_GUILESS_MAIN(TestTextDiff)
#include "test_text_diff.moc"
