#pragma once
// The Code tab of a step: the extracted solution, read-only, with the verdict's compiler diagnostics and findings
// as margin markers and annotations at the solution's lines, and a list of them beside it: activating one jumps the
// editor to its line. GUI thread.

#include "model/Verdict.h"

#include <QWidget>
#include <optional>

class QsciScintilla;
class QLabel;
class QListWidget;
class QListWidgetItem;

namespace km::replay {

class CodePane : public QWidget {
    Q_OBJECT
public:
    static constexpr int kErrorMarker = 3, kWarningMarker = 4, kNoteMarker = 5;

    explicit CodePane(QWidget* parent = nullptr);

    void setCode(const QString& code, const std::optional<Verdict>& verdict);
    // Moves the cursor to a 1-based line and shows it.
    void jumpToLine(int line);
    // 1-based lines that carry a marker, ascending.
    QList<int> markedLines() const;

    QsciScintilla* editor() const { return m_editor; }
    QListWidget* diagnosticList() const { return m_list; }

private:
    void activate(QListWidgetItem* item);

    QLabel* m_empty;
    QsciScintilla* m_editor;
    QListWidget* m_list;
};

}  // namespace km::replay
