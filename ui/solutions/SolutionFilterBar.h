#pragma once
// The solution queue's filter bar: search box and review status, verdict and origin choices; says the filter they
// make (the task filter is not theirs: it is kept as given). GUI thread.

#include "solutions/SolutionFilterProxy.h"

#include <QWidget>

class QComboBox;
class QLineEdit;

namespace km::ui {

class SolutionFilterBar : public QWidget {
    Q_OBJECT
public:
    explicit SolutionFilterBar(QWidget* parent = nullptr);
    // `base` with the bar's choices over it.
    SolutionViewFilter apply(SolutionViewFilter base) const;

Q_SIGNALS:
    void changed();

private:
    QLineEdit* m_search;
    QComboBox* m_review;
    QComboBox* m_verdict;
    QComboBox* m_origin;
};

}  // namespace km::ui
