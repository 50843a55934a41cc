#pragma once
// A small chooser of the step the Diff tab compares with: "previous step" (the default) or any step of the run.
// Opens window-modal without blocking (open()); says what was chosen through `chosen`. GUI thread.

#include "store/RunQuery.h"

#include <QDialog>

class QListWidget;

namespace km::replay {

class StepChooser : public QDialog {
    Q_OBJECT
public:
    // `currentStepId`: the compared step now (0: the previous step); it is preselected.
    StepChooser(const QList<StepSummary>& steps, qint64 currentStepId, QWidget* parent = nullptr);
    QListWidget* list() const { return m_list; }

Q_SIGNALS:
    // 0 for "the previous step".
    void chosen(qint64 stepId);

private:
    QListWidget* m_list;
};

}  // namespace km::replay
