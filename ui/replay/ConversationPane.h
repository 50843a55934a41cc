#pragma once
// The Conversation tab of a step: the prompt sent and the model's reply, rendered as Markdown or shown raw, and the
// messages the step added to the conversation. GUI thread.

#include "model/Trajectory.h"

#include <QWidget>

class QCheckBox;
class QListWidget;
class QTextBrowser;

namespace km::replay {

class ConversationPane : public QWidget {
    Q_OBJECT
public:
    explicit ConversationPane(QWidget* parent = nullptr);

    void setStep(const TrajectoryStep& step);
    void clear();
    void setRaw(bool raw);
    bool isRaw() const;

    QTextBrowser* promptBrowser() const { return m_prompt; }
    QTextBrowser* replyBrowser() const { return m_reply; }
    QListWidget* messageList() const { return m_messages; }
    // The message selected in messageList(), in full.
    QTextBrowser* messageBrowser() const { return m_message; }
    QCheckBox* rawToggle() const { return m_raw; }

private:
    void render();
    void renderMessage();

    QCheckBox* m_raw;
    QTextBrowser* m_prompt;
    QTextBrowser* m_reply;
    QListWidget* m_messages;
    QTextBrowser* m_message;
    QString m_promptText;
    QString m_replyText;
};

}  // namespace km::replay
