// DiffView: side-by-side and unified diffs of two solution versions in QScintilla.
#include "replay/DiffView.h"

#include "views/Qsci.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace km::replay {

namespace {

const QColor kRemovedBg(0xfd, 0xe2, 0xe2);
const QColor kAddedBg(0xdf, 0xf5, 0xe1);
const QColor kFillerBg(0xee, 0xee, 0xee);
const QColor kChanged(0xc0, 0x7a, 0x00);

QsciScintilla* makeEditor(QWidget* parent, bool python)
{
    auto* e = new QsciScintilla(parent);
    e->setReadOnly(true);
    e->setUtf8(true);
    e->setWrapMode(QsciScintilla::WrapNone);
    if (python)
        e->setLexer(new QsciLexerPython(e));
    e->markerDefine(QsciScintilla::Background, DiffView::kRemovedMarker);
    e->setMarkerBackgroundColor(kRemovedBg, DiffView::kRemovedMarker);
    e->markerDefine(QsciScintilla::Background, DiffView::kAddedMarker);
    e->setMarkerBackgroundColor(kAddedBg, DiffView::kAddedMarker);
    e->markerDefine(QsciScintilla::Background, DiffView::kFillerMarker);
    e->setMarkerBackgroundColor(kFillerBg, DiffView::kFillerMarker);
    e->indicatorDefine(QsciScintilla::StraightBoxIndicator, DiffView::kChangedIndicator);
    e->setIndicatorForegroundColor(kChanged, DiffView::kChangedIndicator);
    // A translucent box with a solid outline: the changed characters stay readable inside it.
    e->SendScintilla(QsciScintilla::SCI_INDICSETALPHA, DiffView::kChangedIndicator, 70);
    e->SendScintilla(QsciScintilla::SCI_INDICSETOUTLINEALPHA, DiffView::kChangedIndicator, 200);
    e->SendScintilla(QsciScintilla::SCI_INDICSETUNDER, DiffView::kChangedIndicator, 1);
    e->setMarginType(0, QsciScintilla::TextMargin);
    e->setMarginWidth(0, QStringLiteral("00000"));
    e->setMarginWidth(1, 0);
    return e;
}

// Byte position in a UTF-8 document of a column (UTF-16 units) on a line.
long positionOf(QsciScintilla* e, int row, const QString& lineText, int column)
{
    const long lineStart = e->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, row);
    return lineStart + long(lineText.left(column).toUtf8().size());
}

void fillRange(QsciScintilla* e, int row, const QString& lineText, const DiffSpan& span)
{
    const long from = positionOf(e, row, lineText, span.start);
    const long to = positionOf(e, row, lineText, span.start + span.length);
    e->SendScintilla(QsciScintilla::SCI_SETINDICATORCURRENT, DiffView::kChangedIndicator);
    e->SendScintilla(QsciScintilla::SCI_INDICATORFILLRANGE, from, to - from);
}

QStringList splitKeepingLast(const QString& text)
{
    QStringList l = text.split(QLatin1Char('\n'));
    if (text.isEmpty() || text.endsWith(QLatin1Char('\n')))
        l.removeLast();
    return l;
}

void syncScrollBars(QScrollBar* a, QScrollBar* b)
{
    QObject::connect(a, &QScrollBar::valueChanged, b, &QScrollBar::setValue);
    QObject::connect(b, &QScrollBar::valueChanged, a, &QScrollBar::setValue);
}

}  // namespace

DiffView::DiffView(QWidget* parent)
    : QWidget(parent)
    , m_pages(new QStackedWidget(this))
    , m_oldLabel(new QLabel(this))
    , m_newLabel(new QLabel(this))
    , m_old(makeEditor(this, true))
    , m_new(makeEditor(this, true))
    , m_unified(makeEditor(this, false))
    , m_noChanges(new QLabel(tr("No changes: the two versions are the same."), this))
{
    m_old->setObjectName(QStringLiteral("diffOld"));
    m_new->setObjectName(QStringLiteral("diffNew"));
    m_unified->setObjectName(QStringLiteral("diffUnified"));
    m_unified->setMarginWidth(0, 0);
    m_noChanges->setAlignment(Qt::AlignCenter);
    m_noChanges->setObjectName(QStringLiteral("diffNoChanges"));

    auto* side = new QWidget(this);
    auto* grid = new QHBoxLayout(side);
    grid->setContentsMargins(0, 0, 0, 0);
    for (auto [label, editor] : {std::pair{m_oldLabel, m_old}, std::pair{m_newLabel, m_new}}) {
        auto* column = new QVBoxLayout;
        column->addWidget(label);
        column->addWidget(editor, 1);
        grid->addLayout(column, 1);
    }
    syncScrollBars(m_old->verticalScrollBar(), m_new->verticalScrollBar());
    syncScrollBars(m_old->horizontalScrollBar(), m_new->horizontalScrollBar());
    m_pages->addWidget(side);
    m_pages->addWidget(m_unified);
    m_pages->addWidget(m_noChanges);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
    setTexts({}, {}, {}, {});
}

void DiffView::setTexts(const QString& oldLabel, const QString& oldText, const QString& newLabel,
                        const QString& newText)
{
    m_oldLabel->setText(oldLabel);
    m_newLabel->setText(newLabel);
    m_lines = diffLines(oldText, newText);
    m_hasChanges = false;
    for (const DiffLine& l : m_lines)
        m_hasChanges = m_hasChanges || l.kind != DiffLine::Kind::Equal;
    m_pending = {oldLabel, oldText, newLabel, newText};
    m_sideStale = true;
    m_unifiedStale = true;
    showPage();
}

void DiffView::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    showPage();
    Q_EMIT modeChanged(mode);
}

void DiffView::toggleMode()
{
    setMode(m_mode == Mode::SideBySide ? Mode::Unified : Mode::SideBySide);
}

const QList<DiffView::Highlight>& DiffView::highlights() const
{
    ensureSideBySide();
    return m_highlights;
}

QsciScintilla* DiffView::oldEditor() const
{
    ensureSideBySide();
    return m_old;
}

QsciScintilla* DiffView::newEditor() const
{
    ensureSideBySide();
    return m_new;
}

int DiffView::rowOf(Side side, int line) const
{
    ensureSideBySide();
    const QList<int>& rows = side == Side::Old ? m_oldRows : m_newRows;
    return line >= 1 && line <= rows.size() ? rows[line - 1] : -1;
}

void DiffView::showPage()
{
    if (m_mode == Mode::Unified && m_unifiedStale) {  // made when first shown: a step switch in side mode skips it
        fillUnified(unifiedDiff(m_pending[1], m_pending[3], 3, m_pending[0], m_pending[2]));
        m_unifiedStale = false;
    }
    if (m_mode == Mode::SideBySide)
        ensureSideBySide();
    m_pages->setCurrentIndex(!m_hasChanges ? 2 : m_mode == Mode::SideBySide ? 0 : 1);
}

void DiffView::ensureSideBySide() const
{
    if (!m_sideStale)
        return;
    m_sideStale = false;
    fillSideBySide(m_pending[1], m_pending[3]);
}

void DiffView::fillSideBySide(const QString& oldText, const QString& newText) const
{
    const QStringList a = splitKeepingLast(oldText);
    const QStringList b = splitKeepingLast(newText);
    QStringList left, right;
    QStringList leftNumbers, rightNumbers;
    QList<int> leftMarks, rightMarks;  // marker per row, -1 for none
    QList<std::pair<int, int>> pairs;  // rows of changed lines shown opposite each other
    m_oldRows = QList<int>(a.size(), -1);
    m_newRows = QList<int>(b.size(), -1);
    m_highlights.clear();
    for (qsizetype i = 0; i < m_lines.size();) {
        if (m_lines[i].kind == DiffLine::Kind::Equal) {
            m_oldRows[m_lines[i].oldLine - 1] = int(left.size());
            m_newRows[m_lines[i].newLine - 1] = int(right.size());
            left << a[m_lines[i].oldLine - 1];
            right << b[m_lines[i].newLine - 1];
            leftNumbers << QString::number(m_lines[i].oldLine);
            rightNumbers << QString::number(m_lines[i].newLine);
            leftMarks << -1;
            rightMarks << -1;
            ++i;
            continue;
        }
        QList<int> removed, added;  // one change: its removed lines, then its added lines
        for (; i < m_lines.size() && m_lines[i].kind == DiffLine::Kind::Removed; ++i)
            removed << m_lines[i].oldLine;
        for (; i < m_lines.size() && m_lines[i].kind == DiffLine::Kind::Added; ++i)
            added << m_lines[i].newLine;
        const qsizetype rows = qMax(removed.size(), added.size());
        for (qsizetype r = 0; r < rows; ++r) {
            const int row = int(left.size());
            if (r < removed.size()) {
                m_oldRows[removed[r] - 1] = row;
                left << a[removed[r] - 1];
                leftNumbers << QString::number(removed[r]);
                leftMarks << kRemovedMarker;
            } else {
                left << QString();
                leftNumbers << QString();
                leftMarks << kFillerMarker;
            }
            if (r < added.size()) {
                m_newRows[added[r] - 1] = row;
                right << b[added[r] - 1];
                rightNumbers << QString::number(added[r]);
                rightMarks << kAddedMarker;
            } else {
                right << QString();
                rightNumbers << QString();
                rightMarks << kFillerMarker;
            }
            if (r < removed.size() && r < added.size())
                pairs.append({row, row});
        }
    }
    const auto fill = [](QsciScintilla* e, const QStringList& text, const QStringList& numbers,
                         const QList<int>& marks) {
        e->setReadOnly(false);
        e->setText(text.join(QLatin1Char('\n')));
        e->setReadOnly(true);
        e->markerDeleteAll();
        e->clearMarginText();
        for (qsizetype r = 0; r < text.size(); ++r) {
            if (marks[r] >= 0)
                e->markerAdd(int(r), marks[r]);
            if (!numbers[r].isEmpty())
                e->setMarginText(int(r), numbers[r], 0);
        }
    };
    fill(m_old, left, leftNumbers, leftMarks);
    fill(m_new, right, rightNumbers, rightMarks);
    for (const auto& [row, unused] : pairs) {
        const DiffSpans spans = changedSpans(left[row], right[row]);
        for (const DiffSpan& s : spans.oldSpans) {
            fillRange(m_old, row, left[row], s);
            m_highlights.append({Side::Old, row, s.start, s.length});
        }
        for (const DiffSpan& s : spans.newSpans) {
            fillRange(m_new, row, right[row], s);
            m_highlights.append({Side::New, row, s.start, s.length});
        }
    }
}

void DiffView::fillUnified(const QString& text)
{
    m_unified->setReadOnly(false);
    m_unified->setText(text);
    m_unified->setReadOnly(true);
    m_unified->markerDeleteAll();
    const QStringList rows = splitKeepingLast(text);
    const qsizetype first = text.startsWith(QLatin1String("--- ")) ? 2 : 0;  // the label lines
    for (qsizetype r = first; r < rows.size(); ++r) {
        const QString& l = rows[r];
        if (l.startsWith(QLatin1Char('-')))
            m_unified->markerAdd(int(r), kRemovedMarker);
        else if (l.startsWith(QLatin1Char('+')))
            m_unified->markerAdd(int(r), kAddedMarker);
        else if (l.startsWith(QLatin1String("@@")))
            m_unified->markerAdd(int(r), kFillerMarker);
    }
    // Within a change, the n-th removed line and the n-th added line are a pair: box their changed characters
    // (after the one-character prefix).
    for (qsizetype r = first; r < rows.size();) {
        if (!rows[r].startsWith(QLatin1Char('-'))) {
            ++r;
            continue;
        }
        const qsizetype removedFrom = r;
        while (r < rows.size() && rows[r].startsWith(QLatin1Char('-')))
            ++r;
        const qsizetype addedFrom = r;
        while (r < rows.size() && rows[r].startsWith(QLatin1Char('+')))
            ++r;
        const qsizetype pairs = qMin(addedFrom - removedFrom, r - addedFrom);
        for (qsizetype k = 0; k < pairs; ++k) {
            const QString& oldRow = rows[removedFrom + k];
            const QString& newRow = rows[addedFrom + k];
            const DiffSpans spans = changedSpans(oldRow.mid(1), newRow.mid(1));
            for (const DiffSpan& sp : spans.oldSpans)
                fillRange(m_unified, int(removedFrom + k), oldRow, {sp.start + 1, sp.length});
            for (const DiffSpan& sp : spans.newSpans)
                fillRange(m_unified, int(addedFrom + k), newRow, {sp.start + 1, sp.length});
        }
    }
}

}  // namespace km::replay
