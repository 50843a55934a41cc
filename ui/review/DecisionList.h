#pragma once
// The decisions of this review session, newest first; Enter or a click on one asks to go back to its task.
// GUI thread.

#include <QListWidget>

namespace km::ui {

struct SessionDecision;

class DecisionList : public QListWidget {
    Q_OBJECT
public:
    explicit DecisionList(QWidget* parent = nullptr);
    void showDecisions(const QList<SessionDecision>& decisions);  // the latest kShown
    QString taskIdAt(int row) const;

    static constexpr int kShown = 30;

Q_SIGNALS:
    void revisitRequested(const QString& taskId);
};

}  // namespace km::ui
