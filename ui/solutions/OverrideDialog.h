#pragma once
// Asks for the written reason of accepting a solution past the acceptance gate: lists the unmet rules; OK only
// once a reason is written. GUI thread.

#include "services/AcceptanceGate.h"

#include <QDialog>

class QPlainTextEdit;
class QPushButton;

namespace km::ui {

class OverrideDialog : public QDialog {
    Q_OBJECT
public:
    OverrideDialog(qint64 solutionId, const QList<GateRule>& unmet, QWidget* parent = nullptr);
    QString reason() const;
    QPlainTextEdit* reasonEdit() const { return m_reason; }
    QPushButton* okButton() const { return m_ok; }

private:
    QPlainTextEdit* m_reason;
    QPushButton* m_ok;
};

}  // namespace km::ui
