// The selected solution's tabs (SolutionDetailPane.h).
#include "solutions/SolutionDetailPane.h"

#include "views/Qsci.h"

#include <QHeaderView>
#include <QListWidget>
#include <QTableWidget>

namespace km::ui {

QString historyLine(const AuditEntry& e)
{
    const QVariantMap& d = e.detail;
    QString what;
    if (e.action == QLatin1String("status")) {
        what = QStringLiteral("%1 → %2").arg(d.value(QStringLiteral("from")).toString(),
                                             d.value(QStringLiteral("to")).toString());
        const QStringList overridden = d.value(QStringLiteral("override")).toStringList();
        if (!overridden.isEmpty())
            what += QObject::tr("  [override: %1]").arg(overridden.join(QStringLiteral(", ")));
        if (!e.reason.isEmpty())
            what += QStringLiteral("  (%1)").arg(e.reason);
        const QString comment = d.value(QStringLiteral("comment")).toString();
        if (!comment.isEmpty())
            what += QStringLiteral("  %1").arg(comment);
    } else if (e.action == QLatin1String("verified")) {
        what = QObject::tr("verified: %1 (verdict %2)")
                   .arg(d.value(QStringLiteral("status")).toString(), d.value(QStringLiteral("verdict_id")).toString());
    } else if (e.action == QLatin1String("fixed")) {
        what = QObject::tr("fixed from solution %1").arg(d.value(QStringLiteral("parent_id")).toString());
    } else if (e.action == QLatin1String("created")) {
        what = QObject::tr("created (%1)").arg(d.value(QStringLiteral("origin")).toString());
    } else {
        what = e.action + (e.reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(e.reason));
    }
    return QStringLiteral("%1  %2: %3")
        .arg(e.at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), e.actor, what);
}

SolutionDetailPane::SolutionDetailPane(QWidget* parent)
    : QTabWidget(parent)
    , m_code(new QsciScintilla(this))
    , m_verdicts(new QTableWidget(0, 6, this))
    , m_history(new QListWidget(this))
{
    setObjectName(QStringLiteral("solutionTabs"));
    m_code->setObjectName(QStringLiteral("solutionCode"));
    m_code->setLexer(new QsciLexerPython(m_code));
    m_code->setMarginType(0, QsciScintilla::NumberMargin);
    m_code->setMarginWidth(0, QStringLiteral("00000"));
    m_code->setReadOnly(true);
    addTab(m_code, tr("Code"));
    m_verdicts->setObjectName(QStringLiteral("solutionVerdicts"));
    m_verdicts->setHorizontalHeaderLabels(
        {tr("Verdict"), tr("Status"), tr("At"), tr("Harness"), tr("Device / GPU"), tr("Summary")});
    m_verdicts->horizontalHeader()->setStretchLastSection(true);
    m_verdicts->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_verdicts->verticalHeader()->hide();
    addTab(m_verdicts, tr("Verdicts"));
    m_history->setObjectName(QStringLiteral("solutionHistory"));
    addTab(m_history, tr("History"));
}

void SolutionDetailPane::showDetail(const std::optional<SolutionDetail>& d)
{
    const qint64 id = d ? d->solution.id : 0;
    if (!m_editing || id != m_shownId) {
        if (id != m_shownId)
            setEditing(false);
        m_shownCode = d ? d->solution.code : QString();
        m_code->setText(m_shownCode);
    }
    m_shownId = id;
    m_verdicts->setRowCount(0);
    m_history->clear();
    if (!d) {
        m_history->addItem(tr("no solution selected"));
        return;
    }
    for (const Verdict& v : d->verdicts) {
        const int row = m_verdicts->rowCount();
        m_verdicts->insertRow(row);
        const QString device = v.evidence.value(QStringLiteral("device")).toString();
        const QString gpu = v.environment.value(QStringLiteral("gpu")).toMap().value(QStringLiteral("name")).toString();
        const QStringList cells{QString::number(v.id),
                                toString(v.status),
                                v.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                                v.harnessVersion,
                                gpu.isEmpty() ? device : QStringLiteral("%1 (%2)").arg(device, gpu),
                                v.summary};
        for (int c = 0; c < cells.size(); ++c)
            m_verdicts->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    if (d->verdicts.isEmpty()) {
        m_verdicts->insertRow(0);
        m_verdicts->setItem(0, 1, new QTableWidgetItem(tr("no verdict: re-verify it")));
    }
    for (const AuditEntry& e : d->audit) {
        auto* item = new QListWidgetItem(historyLine(e), m_history);
        item->setData(Qt::UserRole, e.id);
    }
    if (d->audit.isEmpty())
        m_history->addItem(tr("no history"));
}

void SolutionDetailPane::setEditing(bool on)
{
    m_editing = on;
    m_code->setReadOnly(!on);
    // An editable editor takes the single review keys as text (TypingGuard).
    m_code->setProperty("kmosaicTextInput", on);
    if (on) {
        setCurrentWidget(m_code);
        m_code->setFocus();
    } else {
        m_code->setText(m_shownCode);
    }
}

QString SolutionDetailPane::code() const
{
    return m_code->text();
}

bool SolutionDetailPane::codeChanged() const
{
    return m_code->text() != m_shownCode;
}

}  // namespace km::ui
