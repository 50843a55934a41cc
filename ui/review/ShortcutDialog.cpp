#include "review/ShortcutDialog.h"

#include "review/ShortcutHelpDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeySequenceEdit>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace km::ui {

ShortcutDialog::ShortcutDialog(const ShortcutMap& map, const QList<ReasonCode>& reasons, QWidget* parent)
    : QDialog(parent)
    , m_map(map)
    , m_table(new QTableWidget(this))
    , m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("shortcutDialog"));
    setWindowTitle(tr("Review keys"));
    const QList<ShortcutInfo>& catalog = shortcutCatalog();
    m_table->setColumnCount(3);
    m_table->setRowCount(int(catalog.size()));
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Key"), tr("Description")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->resizeSection(1, 160);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    for (int row = 0; row < catalog.size(); ++row) {
        const ShortcutInfo& info = catalog.at(row);
        m_table->setItem(row, 0, new QTableWidgetItem(actionText(info.action, reasons)));
        m_table->setItem(row, 2, new QTableWidgetItem(info.description));
        auto* edit = new QKeySequenceEdit(m_table);
        edit->setObjectName(QStringLiteral("keyEdit-") + info.id);
        edit->setClearButtonEnabled(true);
        m_table->setCellWidget(row, 1, edit);
        m_edits.append(edit);
        const ReviewAction a = info.action;
        connect(edit, &QKeySequenceEdit::editingFinished, this, [this, a, edit] { tryKey(a, edit->keySequence()); });
        // The editor also clears itself when a recording starts; only a clear that lasts (the clear button) counts.
        connect(edit, &QKeySequenceEdit::keySequenceChanged, this, [this, a, edit](const QKeySequence& k) {
            if (k.isEmpty())
                QTimer::singleShot(0, edit, [this, a, edit] {
                    if (edit->keySequence().isEmpty() && !m_map.key(a).isEmpty())
                        tryKey(a, {});
                });
        });
    }
    m_message->setObjectName(QStringLiteral("shortcutMessage"));
    m_message->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton* reset = buttons->addButton(tr("Reset to defaults"), QDialogButtonBox::ResetRole);
    connect(reset, &QPushButton::clicked, this, [this] {
        m_map.resetToDefaults();
        m_message->clear();
        showKeys();
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(m_message);
    layout->addWidget(buttons);
    resize(820, 600);
    showKeys();
}

bool ShortcutDialog::tryKey(ReviewAction a, const QKeySequence& key)
{
    // The editor records up to four keys; an action takes the first.
    const QKeySequence single = key.isEmpty() ? QKeySequence() : QKeySequence(key[0]);
    if (Status s = m_map.setKey(a, single); !s) {
        m_message->setText(s.error().message);
        showKeys();
        return false;
    }
    m_message->clear();
    showKeys();
    return true;
}

void ShortcutDialog::showKeys()
{
    const QList<ShortcutInfo>& catalog = shortcutCatalog();
    for (int row = 0; row < catalog.size(); ++row) {
        QKeySequenceEdit* edit = m_edits.at(row);
        const QKeySequence key = m_map.key(catalog.at(row).action);
        if (edit->keySequence() != key) {
            const QSignalBlocker block(edit);
            edit->setKeySequence(key);
        }
    }
}

}  // namespace km::ui
