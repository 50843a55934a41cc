#pragma once
// Line-based unified diff (Myers' O(ND) algorithm in linear space) for the trajectory's diff of a solution to its
// previous version. Pure, any thread.

#include <QString>

namespace km {

// The hunks that turn `oldText` into `newText`, in the format of `diff -u`: `@@ -a,b +c,d @@` headers, ' ', '-' and
// '+' lines, "\ No newline at end of file" after a last line without one. Empty when the texts are equal. With
// labels, the hunks are preceded by "--- oldLabel" and "+++ newLabel" lines. CRLF is compared as written.
QString unifiedDiff(const QString& oldText, const QString& newText, int contextLines = 3, const QString& oldLabel = {},
                    const QString& newLabel = {});

}  // namespace km
