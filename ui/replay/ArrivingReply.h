#pragma once
// The reply of a live run's next step while it streams in (AgentRunsController::replyGrew): "Step N: the reply is
// arriving (K characters)" over the text so far, read-only, following its end. Hidden when no reply is arriving.

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace km::replay {

class ArrivingReply : public QWidget {
    Q_OBJECT
public:
    explicit ArrivingReply(QWidget* parent = nullptr);

    // Shows `text`, the reply of step `stepIdx` (0-based) so far; an empty text (a retry starting again) says so.
    void setText(int stepIdx, const QString& text);
    // Hides it: the step was recorded, or another run is open.
    void clear();
    int stepIdx() const { return m_stepIdx; }  // -1: none arriving
    QString text() const;

private:
    QLabel* m_label;
    QPlainTextEdit* m_text;
    int m_stepIdx = -1;
};

}  // namespace km::replay
