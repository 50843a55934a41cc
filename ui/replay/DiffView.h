#pragma once
// Two versions of a solution compared: side by side (two read-only, scroll-synced editors, removed and added lines
// on coloured backgrounds, changed characters boxed within a changed line) or unified (one editor with the text of
// unifiedDiff). Says "no changes" when the texts are equal. Each mode's editors are filled when that mode is first
// shown after setTexts (or when they are asked for), so a step switch fills only what is on screen. GUI thread.

#include "agent/TextDiff.h"

#include <QStringList>
#include <QWidget>

class QsciScintilla;
class QLabel;
class QStackedWidget;

namespace km::replay {

class DiffView : public QWidget {
    Q_OBJECT
public:
    enum class Mode { SideBySide, Unified };
    enum class Side { Old, New };
    // A boxed range of characters: the editor line (0-based, filler lines counted) and columns in UTF-16 units.
    struct Highlight {
        Side side = Side::Old;
        int row = 0;
        int start = 0;
        int length = 0;
    };
    // Indicator and markers used in the editors (tests read them back through SCI_INDICATORVALUEAT).
    static constexpr int kChangedIndicator = 8;
    static constexpr int kRemovedMarker = 0, kAddedMarker = 1, kFillerMarker = 2;

    explicit DiffView(QWidget* parent = nullptr);

    void setTexts(const QString& oldLabel, const QString& oldText, const QString& newLabel, const QString& newText);
    void setMode(Mode mode);
    void toggleMode();
    Mode mode() const { return m_mode; }
    bool hasChanges() const { return m_hasChanges; }

    const QList<DiffLine>& lines() const { return m_lines; }
    // The side-by-side editors and what they show, filled first if the side-by-side mode was not shown since.
    const QList<Highlight>& highlights() const;
    QsciScintilla* oldEditor() const;
    QsciScintilla* newEditor() const;
    // The unified editor, filled when the unified mode is first shown after setTexts.
    QsciScintilla* unifiedEditor() const { return m_unified; }
    // The editor line (0-based) of an old or new text's line (1-based); -1 when not shown.
    int rowOf(Side side, int line) const;

Q_SIGNALS:
    void modeChanged(km::replay::DiffView::Mode mode);

private:
    void showPage();
    void ensureSideBySide() const;
    void fillSideBySide(const QString& oldText, const QString& newText) const;
    void fillUnified(const QString& text);

    QStackedWidget* m_pages;
    QLabel* m_oldLabel;
    QLabel* m_newLabel;
    QsciScintilla* m_old;
    QsciScintilla* m_new;
    QsciScintilla* m_unified;
    QLabel* m_noChanges;
    Mode m_mode = Mode::SideBySide;
    bool m_hasChanges = false;
    QList<DiffLine> m_lines;
    mutable QList<Highlight> m_highlights;
    mutable QList<int> m_oldRows;  // editor row of each old line
    mutable QList<int> m_newRows;
    QStringList m_pending{QString(), QString(), QString(), QString()};  // old label, old text, new label, new text
    bool m_unifiedStale = false;
    mutable bool m_sideStale = false;
};

}  // namespace km::replay
