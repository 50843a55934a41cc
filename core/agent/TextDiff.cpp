#include "agent/TextDiff.h"

// Hand-written, not dtl (libdtl-dev 1.20): dtl's O(NP) search records every path coordinate and stops at 2 million
// of them, then goes on from where it got to, so its script is no longer the shortest. A 5,000-line file with 30% of
// its lines changed (from 40 distinct lines, as code repeats them) reaches that: dtl made 3,422 edits where 3,392 is
// minimal (6,733 for 6,541 at 60%), held about 48 MB more and took twice as long at 30% (110 ms against 57 ms here).
// Its unified hunks have a fixed context of 3 lines and no "\ No newline at end of file", so the hunks below would
// stay in any case.

#include <QHash>
#include <QStringList>
#include <vector>

namespace km {

namespace {

struct Lines {
    QStringList text;    // without their '\n'
    bool noEol = false;  // the last line has no '\n'
};

Lines splitLines(const QString& s)
{
    Lines l;
    if (s.isEmpty())
        return l;
    l.text = s.split(QLatin1Char('\n'));
    if (s.endsWith(QLatin1Char('\n')))
        l.text.removeLast();
    else
        l.noEol = true;
    return l;
}

// Marks the lines that are deleted from A and inserted into B along a shortest edit script. The recursion splits
// each range at a point of an optimal path found by the bidirectional search of Myers (1986), section 4b.
class Differ {
public:
    Differ(std::vector<int> a, std::vector<int> b)
        : deleted(a.size(), 0)
        , inserted(b.size(), 0)
        , m_a(std::move(a))
        , m_b(std::move(b))
    {
        diff(0, int(m_a.size()), 0, int(m_b.size()));
    }

    std::vector<char> deleted;
    std::vector<char> inserted;

private:
    std::vector<int> m_a;
    std::vector<int> m_b;

    void markAll(int aLo, int aHi, int bLo, int bHi)
    {
        for (int i = aLo; i < aHi; ++i)
            deleted[size_t(i)] = 1;
        for (int j = bLo; j < bHi; ++j)
            inserted[size_t(j)] = 1;
    }

    void diff(int aLo, int aHi, int bLo, int bHi)
    {
        while (aLo < aHi && bLo < bHi && m_a[size_t(aLo)] == m_b[size_t(bLo)])
            ++aLo, ++bLo;
        while (aLo < aHi && bLo < bHi && m_a[size_t(aHi - 1)] == m_b[size_t(bHi - 1)])
            --aHi, --bHi;
        if (aLo == aHi || bLo == bHi) {
            markAll(aLo, aHi, bLo, bHi);
            return;
        }
        int x = 0;
        int y = 0;
        if (!split(aLo, aHi, bLo, bHi, &x, &y) || (x == 0 && y == 0) || (x == aHi - aLo && y == bHi - bLo)) {
            markAll(aLo, aHi, bLo, bHi);  // no common line (or no progress): replace the whole range
            return;
        }
        diff(aLo, aLo + x, bLo, bLo + y);
        diff(aLo + x, aHi, bLo + y, bHi);
    }

    // A point (x, y), relative to (aLo, bLo), where the forward and backward searches meet.
    bool split(int aLo, int aHi, int bLo, int bHi, int* outX, int* outY) const
    {
        const int n = aHi - aLo;
        const int m = bHi - bLo;
        const int maxD = (n + m + 1) / 2;
        const int off = maxD;
        std::vector<int> vf(2 * size_t(maxD) + 2, -1);
        std::vector<int> vb(2 * size_t(maxD) + 2, -1);
        vf[size_t(off) + 1] = 0;
        vb[size_t(off) + 1] = 0;
        const int delta = n - m;
        const bool front = (delta % 2) != 0;
        const auto at = [](std::vector<int>& v, int i) -> int& {
            return v[size_t(i)];
        };
        int k1start = 0, k1end = 0, k2start = 0, k2end = 0;
        for (int d = 0; d < maxD; ++d) {
            for (int k = -d + k1start; k <= d - k1end; k += 2) {
                const int ko = off + k;
                int x = (k == -d || (k != d && at(vf, ko - 1) < at(vf, ko + 1))) ? at(vf, ko + 1) : at(vf, ko - 1) + 1;
                int y = x - k;
                while (x < n && y < m && m_a[size_t(aLo) + size_t(x)] == m_b[size_t(bLo) + size_t(y)])
                    ++x, ++y;
                at(vf, ko) = x;
                if (x > n) {
                    k1end += 2;  // ran off the right edge
                } else if (y > m) {
                    k1start += 2;  // ran off the bottom edge
                } else if (front) {
                    const int bo = off + delta - k;
                    if (bo >= 0 && bo < int(vb.size()) && at(vb, bo) != -1 && x >= n - at(vb, bo)) {
                        *outX = x;
                        *outY = y;
                        return true;
                    }
                }
            }
            for (int k = -d + k2start; k <= d - k2end; k += 2) {
                const int ko = off + k;
                int x = (k == -d || (k != d && at(vb, ko - 1) < at(vb, ko + 1))) ? at(vb, ko + 1) : at(vb, ko - 1) + 1;
                int y = x - k;
                while (x < n && y < m && m_a[size_t(aHi - 1 - x)] == m_b[size_t(bHi - 1 - y)])
                    ++x, ++y;
                at(vb, ko) = x;
                if (x > n) {
                    k2end += 2;
                } else if (y > m) {
                    k2start += 2;
                } else if (!front) {
                    const int fo = off + delta - k;
                    if (fo >= 0 && fo < int(vf.size()) && at(vf, fo) != -1) {
                        const int fx = at(vf, fo);
                        if (fx >= n - x) {
                            *outX = fx;
                            *outY = fx - (fo - off);
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }
};

QString range(int start, int count)
{
    // diff -u: "start" alone for one line; an empty range names the line before it.
    if (count == 1)
        return QString::number(start + 1);
    return QStringLiteral("%1,%2").arg(count == 0 ? start : start + 1).arg(count);
}

struct Edits {
    std::vector<char> deleted;   // per line of the old text
    std::vector<char> inserted;  // per line of the new text
};

Edits shortestEdits(const Lines& a, const Lines& b)
{
    // Lines become numbers; a last line without '\n' differs from the same text with one.
    QHash<QString, int> ids;
    const auto encode = [&ids](const Lines& l) {
        std::vector<int> out;
        out.reserve(size_t(l.text.size()));
        for (qsizetype i = 0; i < l.text.size(); ++i) {
            const QString key = ((l.noEol && i + 1 == l.text.size()) ? QLatin1Char('n') : QLatin1Char('e')) + l.text[i];
            out.push_back(int(ids.insert(key, ids.value(key, int(ids.size()))).value()));
        }
        return out;
    };
    const std::vector<int> ea = encode(a);
    const std::vector<int> eb = encode(b);
    // A line that occurs on one side only is an edit in every script: only the others go into the search, which
    // keeps texts with little in common fast.
    std::vector<int> countA(size_t(ids.size()), 0), countB(size_t(ids.size()), 0);
    for (int id : ea)
        ++countA[size_t(id)];
    for (int id : eb)
        ++countB[size_t(id)];
    std::vector<int> subA, subB, whereA, whereB;
    for (size_t k = 0; k < ea.size(); ++k)
        if (countB[size_t(ea[k])] > 0)
            subA.push_back(ea[k]), whereA.push_back(int(k));
    for (size_t k = 0; k < eb.size(); ++k)
        if (countA[size_t(eb[k])] > 0)
            subB.push_back(eb[k]), whereB.push_back(int(k));
    const Differ d(std::move(subA), std::move(subB));
    Edits e{std::vector<char>(ea.size(), 1), std::vector<char>(eb.size(), 1)};
    for (size_t k = 0; k < whereA.size(); ++k)
        e.deleted[size_t(whereA[k])] = d.deleted[k];
    for (size_t k = 0; k < whereB.size(); ++k)
        e.inserted[size_t(whereB[k])] = d.inserted[k];
    return e;
}

struct Op {
    char kind;  // ' ', '-', '+'
    int a;      // index into the old lines (' ', '-'); for '+': the old lines before it
    int b;      // index into the new lines (' ', '+'); for '-': the new lines before it
};

// The script in file order: within a change, deletions before insertions, as diff -u writes them.
std::vector<Op> script(const Edits& e)
{
    std::vector<Op> ops;
    const int n = int(e.deleted.size()), m = int(e.inserted.size());
    int i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && e.deleted[size_t(i)])
            ops.push_back({'-', i++, j});
        else if (j < m && e.inserted[size_t(j)])
            ops.push_back({'+', i, j++});
        else
            ops.push_back({' ', i++, j++});
    }
    return ops;
}

}  // namespace

QList<DiffLine> diffLines(const QString& oldText, const QString& newText)
{
    const std::vector<Op> ops = script(shortestEdits(splitLines(oldText), splitLines(newText)));
    QList<DiffLine> out;
    out.reserve(qsizetype(ops.size()));
    for (const Op& op : ops) {
        if (op.kind == ' ')
            out.append({DiffLine::Kind::Equal, op.a + 1, op.b + 1});
        else if (op.kind == '-')
            out.append({DiffLine::Kind::Removed, op.a + 1, 0});
        else
            out.append({DiffLine::Kind::Added, 0, op.b + 1});
    }
    return out;
}

DiffSpans changedSpans(const QString& oldLine, const QString& newLine)
{
    std::vector<int> a, b;
    a.reserve(size_t(oldLine.size()));
    b.reserve(size_t(newLine.size()));
    for (QChar c : oldLine)
        a.push_back(c.unicode());
    for (QChar c : newLine)
        b.push_back(c.unicode());
    const Differ d(std::move(a), std::move(b));
    const auto spans = [](const std::vector<char>& marked) {
        QList<DiffSpan> out;
        for (int i = 0; i < int(marked.size());) {
            if (!marked[size_t(i)]) {
                ++i;
                continue;
            }
            const int start = i;
            while (i < int(marked.size()) && marked[size_t(i)])
                ++i;
            out.append({start, i - start});
        }
        return out;
    };
    return {spans(d.deleted), spans(d.inserted)};
}

QString unifiedDiff(const QString& oldText, const QString& newText, int contextLines, const QString& oldLabel,
                    const QString& newLabel)
{
    const Lines a = splitLines(oldText);
    const Lines b = splitLines(newText);
    const std::vector<Op> ops = script(shortestEdits(a, b));
    const int ctx = qMax(0, contextLines);
    QString out;
    const int total = int(ops.size());
    for (int p = 0; p < total;) {
        if (ops[size_t(p)].kind == ' ') {
            ++p;
            continue;
        }
        const int begin = qMax(0, p - ctx);
        int last = p;  // last change of the hunk
        for (int q = p + 1; q < total && q - last <= 2 * ctx + 1; ++q)
            if (ops[size_t(q)].kind != ' ')
                last = q;
        const int end = qMin(total, last + ctx + 1);
        int oldCount = 0, newCount = 0;
        for (int q = begin; q < end; ++q) {
            oldCount += ops[size_t(q)].kind != '+';
            newCount += ops[size_t(q)].kind != '-';
        }
        if (out.isEmpty() && (!oldLabel.isEmpty() || !newLabel.isEmpty()))
            out += QStringLiteral("--- %1\n+++ %2\n").arg(oldLabel, newLabel);
        out += QStringLiteral("@@ -%1 +%2 @@\n")
                   .arg(range(ops[size_t(begin)].a, oldCount), range(ops[size_t(begin)].b, newCount));
        for (int q = begin; q < end; ++q) {
            const Op& op = ops[size_t(q)];
            const bool fromOld = op.kind != '+';
            const Lines& side = fromOld ? a : b;
            const int index = fromOld ? op.a : op.b;
            out += QLatin1Char(op.kind) + side.text[index] + QLatin1Char('\n');
            if (side.noEol && index + 1 == side.text.size())
                out += QStringLiteral("\\ No newline at end of file\n");
        }
        p = end;
    }
    return out;
}

}  // namespace km
