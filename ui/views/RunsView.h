#pragma once
// The runs view: a filter bar (state, reply source, best status, speedup range, label, task, search) above a
// sortable table of every run, and "N of M runs". Fed with run summaries; never touches the store. GUI thread.

#include "models/RunFilterProxyModel.h"
#include "store/RunQuery.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QTableView;
class QToolButton;

namespace km::ui {

class RunTableModel;

class RunsView : public QWidget {
    Q_OBJECT
public:
    explicit RunsView(QWidget* parent = nullptr);

    // A new snapshot: rows update in place, the current run stays current while it is listed.
    void setRuns(QList<RunSummary> runs);
    // Makes the run current (clearing the filters when they hide it); false when it is not listed.
    bool selectRun(qint64 id);
    qint64 currentRunId() const;  // 0: none
    RunFilter filter() const { return m_proxy->filter(); }
    void setFilter(const RunFilter& filter);  // the bar shows it
    RunFilterProxyModel::Counts counts() const { return m_proxy->counts(); }
    QTableView* table() const { return m_table; }
    RunTableModel* model() const { return m_model; }
    RunFilterProxyModel* proxy() const { return m_proxy; }

public Q_SLOTS:          // NOLINT(readability-redundant-access-specifiers): moc needs the slots marked
    void nextRun();      // the next row in the filtered, sorted order; stays on the last
    void previousRun();  // the row before; stays on the first
    void setTaskFilter(const QString& task);  // the runs of one task (a substring of id or title); empty: all

Q_SIGNALS:
    void currentRunChanged(qint64 id);  // 0: none
    void runActivated(qint64 id);       // Enter or double click

private:
    QToolButton* checkMenu(const QString& text, const QString& objectName, const QStringList& items,
                           const QStringList& labels);
    QStringList checked(QToolButton* button) const;
    void setChecked(QToolButton* button, const QStringList& values);
    void refillChoices();
    void applyBar();
    void updateCount();
    void moveBy(int delta);

    RunTableModel* m_model = nullptr;
    RunFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_count = nullptr;
    QToolButton* m_states = nullptr;
    QToolButton* m_statuses = nullptr;
    QComboBox* m_source = nullptr;
    QComboBox* m_label = nullptr;
    QDoubleSpinBox* m_min = nullptr;
    QDoubleSpinBox* m_max = nullptr;
    QLineEdit* m_task = nullptr;
    QLineEdit* m_search = nullptr;
    bool m_updatingBar = false;
    qint64 m_lastCurrent = 0;
};

}  // namespace km::ui
