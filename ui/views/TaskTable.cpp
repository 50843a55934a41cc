#include "views/TaskTable.h"

#include "models/TaskTableModel.h"

#include <QHeaderView>

namespace km::ui {

TaskTable::TaskTable(QWidget* parent) : QTableView(parent)
{
    setObjectName(QStringLiteral("taskTable"));
    setSortingEnabled(true);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    verticalHeader()->hide();
    setWordWrap(false);
    setAlternatingRowColors(true);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
}

void TaskTable::setModel(QAbstractItemModel* model)
{
    QTableView::setModel(model);
    sortByColumn(TaskTableModel::Id, Qt::AscendingOrder);
    // Widths from the font, in average characters: sizing to contents would measure every row on every change.
    // The id column fits the longest bundled ids; the title takes the rest and never less than 24 characters.
    QHeaderView* header = horizontalHeader();
    const int ch = fontMetrics().averageCharWidth();
    for (const auto& [column, chars] :
         {std::pair{TaskTableModel::Id, 24}, std::pair{TaskTableModel::Level, 6},
          std::pair{TaskTableModel::Categories, 16}, std::pair{TaskTableModel::Presentations, 7},
          std::pair{TaskTableModel::Status, 13}, std::pair{TaskTableModel::Reviewer, 10},
          std::pair{TaskTableModel::LastChange, 17}})
        header->resizeSection(column, chars * ch);
    header->setSectionResizeMode(TaskTableModel::Title, QHeaderView::Stretch);
    header->setMinimumSectionSize(3 * ch);
    setMinimumWidth(60 * ch);
}

QString TaskTable::currentTaskId() const
{
    return currentIndex().data(TaskTableModel::TaskIdRole).toString();
}

void TaskTable::showRow(const QModelIndex& index)
{
    if (!index.isValid()) {
        selectionModel()->clearSelection();
        return;
    }
    const QModelIndex target = index.siblingAtColumn(TaskTableModel::Id);
    if (currentIndex().row() != target.row() || selectionModel()->selectedRows().size() != 1 ||
        !selectionModel()->isRowSelected(target.row()))
        selectionModel()->setCurrentIndex(target, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    scrollTo(target);
}

}  // namespace km::ui
