#include "views/KeyListDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace km::ui {

namespace {
QString plain(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));  // mnemonics; "&&" reads as "&"
    return text.remove(QStringLiteral("…")).trimmed();
}

void collect(const QMenu* menu, const QString& path, QList<KeyRow>& out)
{
    for (QAction* a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (a->menu()) {
            collect(a->menu(), path + QStringLiteral(" > ") + plain(a->menu()->title()), out);
            continue;
        }
        if (a->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        QString description = a->statusTip();
        if (description.isEmpty() && plain(a->toolTip()) != plain(a->text()))
            description = a->toolTip();
        out.append({path, plain(a->text()), keys.join(QStringLiteral(", ")), description});
    }
}
}  // namespace

QList<KeyRow> keyRows(const QMenuBar* bar)
{
    QList<KeyRow> out;
    for (QAction* a : bar->actions())
        if (a->menu())
            collect(a->menu(), plain(a->menu()->title()), out);
    return out;
}

KeyListDialog::KeyListDialog(QWidget* parent)
    : QDialog(parent)
    , m_filter(new QLineEdit(this))
    , m_table(new QTableWidget(0, 4, this))
{
    setObjectName(QStringLiteral("keyListDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_filter->setObjectName(QStringLiteral("keyFilter"));
    m_filter->setPlaceholderText(tr("Find an action or a key…"));
    m_filter->setClearButtonEnabled(true);
    m_table->setObjectName(QStringLiteral("keyList"));
    m_table->setHorizontalHeaderLabels({tr("Menu"), tr("Action"), tr("Keys"), tr("What it does")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_filter, &QLineEdit::textChanged, this, &KeyListDialog::applyFilter);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_filter);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(760, 560);
}

void KeyListDialog::setRows(const QList<KeyRow>& rows)
{
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        const QStringList cells{rows[r].menu, rows[r].action, rows[r].keys, rows[r].description};
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(r, c, new QTableWidgetItem(cells[c]));
    }
    m_table->resizeColumnsToContents();
    applyFilter(m_filter->text());
}

void KeyListDialog::applyFilter(const QString& text)
{
    for (int r = 0; r < m_table->rowCount(); ++r) {
        bool match = text.isEmpty();
        for (int c = 0; c < m_table->columnCount() && !match; ++c)
            match = m_table->item(r, c)->text().contains(text, Qt::CaseInsensitive);
        m_table->setRowHidden(r, !match);
    }
}

}  // namespace km::ui
