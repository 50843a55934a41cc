#include "review/ShortcutHelpDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace km::ui {

QString actionText(ReviewAction a, const QList<ReasonCode>& reasons)
{
    const ShortcutInfo& info = shortcutInfo(a);
    const auto i = reasonIndex(a);
    if (!i)
        return info.text;
    return *i < reasons.size() ? QStringLiteral("%1: %2").arg(info.text, displayText(reasons.at(*i)))
                               : QStringLiteral("%1 (not configured)").arg(info.text);
}

QString keyText(const QKeySequence& key)
{
    return key.isEmpty() ? QObject::tr("none") : key.toString(QKeySequence::NativeText);
}

ShortcutHelpDialog::ShortcutHelpDialog(QWidget* parent) : QDialog(parent), m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("shortcutHelpDialog"));
    setWindowTitle(tr("Review keys"));
    m_table->setObjectName(QStringLiteral("shortcutHelpTable"));
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Key"), tr("Description")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(ActionColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(KeyColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DescriptionColumn, QHeaderView::Stretch);
    auto* note = new QLabel(tr("Single keys do nothing while you type in a text field; in the comment field "
                               "Ctrl+ keys still work, and Esc leaves it."),
                            this);
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(note);
    layout->addWidget(buttons);
    resize(760, 560);
}

void ShortcutHelpDialog::setContent(const ShortcutMap& map, const QList<ReasonCode>& reasons)
{
    const QList<ShortcutInfo>& catalog = shortcutCatalog();
    m_table->setRowCount(int(catalog.size()) + 1);
    auto put = [this](int row, const QString& action, const QString& key, const QString& description) {
        m_table->setItem(row, ActionColumn, new QTableWidgetItem(action));
        m_table->setItem(row, KeyColumn, new QTableWidgetItem(key));
        m_table->setItem(row, DescriptionColumn, new QTableWidgetItem(description));
    };
    int row = 0;
    for (const ShortcutInfo& info : catalog)
        put(row++, actionText(info.action, reasons), keyText(map.key(info.action)), info.description);
    put(row, tr("Leave comment"), keyText(QKeySequence(Qt::Key_Escape)),
        tr("Leave the comment field (its text is kept) so that the single keys work again"));
}

}  // namespace km::ui
