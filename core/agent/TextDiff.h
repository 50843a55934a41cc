#pragma once
// Line-based diff (Myers' O(ND) algorithm in linear space) for the trajectory's diff of a solution to its previous
// version: as line operations (the replay's side-by-side view), character spans within a changed line, and the
// unified text recorded in trajectories. Pure, any thread.

#include <QList>
#include <QString>

namespace km {

// One line of a shortest edit script, in file order (within a change, removals before additions, as diff -u).
struct DiffLine {
    enum class Kind { Equal, Removed, Added };
    Kind kind = Kind::Equal;
    int oldLine = 0;  // 1-based line of the old text; 0 for an added line
    int newLine = 0;  // 1-based line of the new text; 0 for a removed line
    bool operator==(const DiffLine&) const = default;
};

// A range of characters (UTF-16 code units) of one line.
struct DiffSpan {
    int start = 0;
    int length = 0;
    bool operator==(const DiffSpan&) const = default;
};

// The characters that differ between a pair of changed lines, on each side.
struct DiffSpans {
    QList<DiffSpan> oldSpans;
    QList<DiffSpan> newSpans;
};

// Every line of both texts as one script that turns `oldText` into `newText`. A last line without '\n' differs
// from the same text with one. Empty for two empty texts.
QList<DiffLine> diffLines(const QString& oldText, const QString& newText);

// The characters removed from `oldLine` and added in `newLine` along a shortest character edit script, adjacent
// ones merged into one span.
DiffSpans changedSpans(const QString& oldLine, const QString& newLine);

// The hunks that turn `oldText` into `newText`, in the format of `diff -u`: `@@ -a,b +c,d @@` headers, ' ', '-' and
// '+' lines, "\ No newline at end of file" after a last line without one. Empty when the texts are equal. With
// labels, the hunks are preceded by "--- oldLabel" and "+++ newLabel" lines. CRLF is compared as written.
QString unifiedDiff(const QString& oldText, const QString& newText, int contextLines = 3, const QString& oldLabel = {},
                    const QString& newLabel = {});

}  // namespace km
