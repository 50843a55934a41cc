#include "review/TypingGuard.h"

#include "review/ShortcutMap.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QKeySequenceEdit>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

namespace km::ui {

bool isTextInput(const QWidget* w)
{
    if (!w)
        return false;
    if (const auto* e = qobject_cast<const QLineEdit*>(w))
        return !e->isReadOnly();
    if (const auto* e = qobject_cast<const QTextEdit*>(w))
        return !e->isReadOnly();
    if (const auto* e = qobject_cast<const QPlainTextEdit*>(w))
        return !e->isReadOnly();
    if (const auto* e = qobject_cast<const QAbstractSpinBox*>(w))
        return !e->isReadOnly();
    if (const auto* c = qobject_cast<const QComboBox*>(w))
        return c->isEditable();
    // Editors the review cannot know by type (QScintilla) declare themselves with this property.
    for (const QWidget* p = w; p; p = p->parentWidget())
        if (p->property("kmosaicTextInput").toBool())
            return true;
    return qobject_cast<const QKeySequenceEdit*>(w) != nullptr;
}

TypingGuard::TypingGuard(std::function<bool(QKeyCombination)> isReviewKey, QWidget* commentField, QObject* parent)
    : QObject(parent)
    , m_isReviewKey(std::move(isReviewKey))
    , m_comment(commentField)
{
}

void TypingGuard::watchWindowOf(QWidget* w)
{
    QWidget* window = w ? w->window() : nullptr;
    if (window == m_window)
        return;
    if (m_window)
        m_window->removeEventFilter(this);
    m_window = window;
    if (m_window)
        m_window->installEventFilter(this);
}

bool TypingGuard::eventFilter(QObject* watched, QEvent* event)
{
    // Text inputs claim printable keys themselves (ShortcutOverride); this catches what they let through
    // (Ctrl+Return in a search box, keys of inputs that claim nothing) before the shortcut map sees it.
    if (event->type() != QEvent::ShortcutOverride)
        return QObject::eventFilter(watched, event);
    QWidget* focus = QApplication::focusWidget();
    if (!isTextInput(focus))
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const QKeyCombination combo = key->keyCombination();
    const QKeyCombination unshifted(combo.keyboardModifiers() & ~Qt::ShiftModifier, combo.key());
    if (!m_isReviewKey(combo) && !m_isReviewKey(unshifted))
        return false;
    if (focus == m_comment && !isPlainKey(combo))
        return false;
    key->accept();  // the text input gets the key as a key press; no shortcut fires
    return true;
}

}  // namespace km::ui
