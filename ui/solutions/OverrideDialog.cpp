// The gate override dialog (OverrideDialog.h).
#include "solutions/OverrideDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace km::ui {

OverrideDialog::OverrideDialog(qint64 solutionId, const QList<GateRule>& unmet, QWidget* parent)
    : QDialog(parent)
    , m_reason(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("overrideDialog"));
    setWindowTitle(tr("Accept past the acceptance gate"));
    auto* layout = new QVBoxLayout(this);
    QString rules;
    for (const GateRule& r : unmet)
        rules += QStringLiteral("<li><b>%1</b>: %2</li>").arg(r.id.toHtmlEscaped(), r.message.toHtmlEscaped());
    auto* text = new QLabel(tr("<p>Solution %1 does not meet the acceptance gate:</p><ul>%2</ul><p>Accepting it "
                               "anyway is recorded as an override, with the rules above and your reason.</p>")
                                .arg(solutionId)
                                .arg(rules),
                            this);
    text->setObjectName(QStringLiteral("overrideRules"));
    text->setWordWrap(true);
    layout->addWidget(text);
    m_reason->setObjectName(QStringLiteral("overrideReason"));
    m_reason->setPlaceholderText(tr("Why it may be accepted (required)"));
    m_reason->setTabChangesFocus(true);
    layout->addWidget(m_reason);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Accept with override"));
    m_ok->setEnabled(false);
    layout->addWidget(buttons);
    connect(m_reason, &QPlainTextEdit::textChanged, this,
            [this] { m_ok->setEnabled(!m_reason->toPlainText().trimmed().isEmpty()); });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QString OverrideDialog::reason() const
{
    return m_reason->toPlainText().trimmed();
}

}  // namespace km::ui
