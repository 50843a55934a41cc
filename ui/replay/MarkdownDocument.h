#pragma once
// Markdown into a QTextDocument as QTextDocument::setMarkdown makes it, faster for long fenced code. Qt's importer
// inserts a code block line by line (about 7 us a line: 15 ms for a reply that holds a 2,000-line solution); here a
// fence of kSplicedFenceLines lines or more is imported as one placeholder line, and its text is put in after, in
// one insertion, with the block and character formats the importer gave the placeholder. Text it cannot be sure of
// (tabs or carriage returns in a fence, raw HTML lines) goes through setMarkdown unchanged. GUI thread (fonts).

class QString;
class QTextDocument;

namespace km::replay {

inline constexpr int kSplicedFenceLines = 40;

void setMarkdown(QTextDocument* doc, const QString& markdown);

}  // namespace km::replay
