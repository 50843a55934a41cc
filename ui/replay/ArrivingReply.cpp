// ArrivingReply: a live step's reply so far.
#include "replay/ArrivingReply.h"

#include <QFontDatabase>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QVBoxLayout>

namespace km::replay {

ArrivingReply::ArrivingReply(QWidget* parent)
    : QWidget(parent)
    , m_label(new QLabel(this))
    , m_text(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("arrivingReply"));
    m_label->setObjectName(QStringLiteral("arrivingReplyLabel"));
    m_text->setObjectName(QStringLiteral("arrivingReplyText"));
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setMaximumHeight(150);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    layout->addWidget(m_label);
    layout->addWidget(m_text);
    hide();
}

void ArrivingReply::setText(int stepIdx, const QString& text)
{
    m_stepIdx = stepIdx;
    m_label->setText(text.isEmpty() ? tr("Step %1: waiting for the reply…").arg(stepIdx + 1)
                                    : tr("Step %1: the reply is arriving (%2 characters)…")
                                          .arg(stepIdx + 1)
                                          .arg(QLocale().toString(text.size())));
    // Whole text each time (a retry starts again from empty); the view stays at its end unless scrolled up.
    QScrollBar* bar = m_text->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_text->setPlainText(text);
    if (atEnd)
        bar->setValue(bar->maximum());
    show();
}

void ArrivingReply::clear()
{
    m_stepIdx = -1;
    m_text->clear();
    hide();
}

QString ArrivingReply::text() const
{
    return m_text->toPlainText();
}

}  // namespace km::replay
