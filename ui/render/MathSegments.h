#pragma once
// Splits Markdown with LaTeX math ($...$ inline, $$...$$ display) into text and math segments, so that Markdown
// processing never sees the TeX. Pure functions over QtCore; any thread.

#include <QList>
#include <QString>

namespace km::ui {

struct MathSegment {
    enum class Kind { Text, InlineMath, DisplayMath };
    Kind kind = Kind::Text;
    QString text;  // Text: the Markdown as written; math: the TeX between the delimiters, untouched
    friend bool operator==(const MathSegment&, const MathSegment&) = default;
};

// The rules (those of pandoc's tex_math_dollars, plus code awareness):
// - `$$` opens display math, closed by the next unescaped `$$`;
// - `$` opens inline math when the next character is not a space; the closing `$` follows a non-space and is not
//   followed by a digit (so "costs $5 or $10" stays text);
// - math never spans a blank line (a stray delimiter cannot swallow the rest of the document); an unclosed
//   delimiter is literal text;
// - `\$` (and any backslash-escaped punctuation) is literal text; inside math, `\$` does not close;
// - `$` is literal inside code spans, fenced code blocks (``` and ~~~) and indented code blocks (outside lists).
// Concatenating the segments, with their delimiters put back, gives the input exactly.
QList<MathSegment> splitMath(const QString& markdown);

// The segment written back with its delimiters.
QString toMarkdown(const MathSegment& segment);

}  // namespace km::ui
