#pragma once
// Mapping between Task values and rows of the tasks table (read by column name); the SQL of task lists. Pure
// functions.

#include "model/Task.h"
#include "store/Row.h"
#include "store/TaskQuery.h"

#include <QSqlQuery>
#include <QVariantList>

namespace km::store {

// Bindings for the content columns, in the order insertTaskSql() and updateTaskSql() expect.
QVariantList contentBindings(const Task& t, const QByteArray& hash);
QString insertTaskSql();             // content bindings, then status, created_at, updated_at
QString updateTaskSql();             // content bindings, then updated_at, id
QString selectTaskSql();             // columns taskFromRow() reads
Result<Task> taskFromRow(Row& row);  // without categories and tags

QString summarySql(const TaskFilter& filter, QVariantList* bindings);  // best full-text match first
QString idsSql(const TaskFilter& filter, QVariantList* bindings);      // ids only, in id order
Result<TaskSummary> summaryFromRow(Row& row);

}  // namespace km::store
