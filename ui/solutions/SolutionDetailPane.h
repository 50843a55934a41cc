#pragma once
// The selected solution: its code (QScintilla, read-only until Fix & Accept's edit mode), its verdicts newest first
// and its History (the audit entries: created, verified, fixed, every decision with overrides marked). Shows a
// SolutionDetail value. GUI thread.

#include "services/SolutionReviewService.h"

#include <QTabWidget>

class QListWidget;
class QTableWidget;
class QsciScintilla;

namespace km::ui {

// One History line: "2026-12-04 21:05:52  ana: draft → rejected  (S2)  comment".
QString historyLine(const AuditEntry& e);

class SolutionDetailPane : public QTabWidget {
    Q_OBJECT
public:
    explicit SolutionDetailPane(QWidget* parent = nullptr);

    // Keeps the editor's text while editing (a live refresh must not throw the reviewer's fix away).
    void showDetail(const std::optional<SolutionDetail>& detail);
    void setEditing(bool on);
    bool editing() const { return m_editing; }
    QString code() const;
    bool codeChanged() const;

    QsciScintilla* editor() const { return m_code; }
    QTableWidget* verdictTable() const { return m_verdicts; }
    QListWidget* historyList() const { return m_history; }

private:
    QsciScintilla* m_code;
    QTableWidget* m_verdicts;
    QListWidget* m_history;
    QString m_shownCode;
    qint64 m_shownId = 0;
    bool m_editing = false;
};

}  // namespace km::ui
