#pragma once
// Keeps the single-key review shortcuts away from text fields. Installed as an event filter on the review window:
// a review key pressed while a text input has focus goes to that input, not to the shortcut. GUI thread.

#include <QKeySequence>
#include <QObject>
#include <QPointer>
#include <functional>

class QWidget;

namespace km::ui {

// An editable line edit, text edit, plain-text edit, spin box, editable combo box or key-sequence edit, or a widget
// (or child of one) with the property kmosaicTextInput set to true (editable QScintilla editors).
bool isTextInput(const QWidget* w);

class TypingGuard : public QObject {
    Q_OBJECT
public:
    // isReviewKey: whether a key belongs to a review action. In `commentField`, chords (keys with Ctrl, Alt or
    // Meta, e.g. Ctrl+Return to save) still work; in every other text input no review key does.
    TypingGuard(std::function<bool(QKeyCombination)> isReviewKey, QWidget* commentField, QObject* parent = nullptr);

    // Watches the window `w` belongs to; stops watching the previous one.
    void watchWindowOf(QWidget* w);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::function<bool(QKeyCombination)> m_isReviewKey;
    QPointer<QWidget> m_comment;
    QPointer<QWidget> m_window;
};

}  // namespace km::ui
