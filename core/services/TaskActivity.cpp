#include "services/TaskActivity.h"

#include "model/Trajectory.h"
#include "store/Database.h"

#include <QSqlQuery>

namespace km {

namespace {
QString plural(int n, const char* one, const char* many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QString speedupText(const std::optional<double>& s)
{
    return s ? QStringLiteral("best %1x").arg(*s, 0, 'f', 2) : QString();
}
}  // namespace

QString TaskActivity::summary() const
{
    QStringList parts;
    if (solutions > 0) {
        QStringList detail;
        if (acceptedSolutions > 0)
            detail << QStringLiteral("%1 accepted").arg(acceptedSolutions);
        detail << QStringLiteral("%1 passing").arg(passingSolutions);
        if (bestSpeedup)
            detail << speedupText(bestSpeedup);
        parts << plural(solutions, "solution", "solutions") + QStringLiteral(" (") + detail.join(QStringLiteral(", ")) +
                     QLatin1Char(')');
    }
    if (runs > 0) {
        QStringList detail;
        if (runningRuns > 0)
            detail << QStringLiteral("%1 running").arg(runningRuns);
        if (bestRunSpeedup)
            detail << speedupText(bestRunSpeedup);
        parts << plural(runs, "agent run", "agent runs") +
                     (detail.isEmpty() ? QString() : QStringLiteral(" (") + detail.join(QStringLiteral(", ")) + ')');
    }
    return parts.join(QStringLiteral(" · "));
}

std::optional<double> TaskActivity::best() const
{
    if (bestSpeedup && bestRunSpeedup)
        return std::max(*bestSpeedup, *bestRunSpeedup);
    return bestSpeedup ? bestSpeedup : bestRunSpeedup;
}

QString TaskActivity::shortText() const
{
    QStringList parts;
    if (runs > 0)
        parts << plural(runs, "run", "runs");
    if (solutions > 0)
        parts << QStringLiteral("%1 sol").arg(solutions);
    if (const auto b = best())
        parts << QStringLiteral("%1x").arg(*b, 0, 'f', 2);
    return parts.join(QStringLiteral(" · "));
}

Result<QHash<QString, TaskActivity>> readTaskActivities(store::Database& db, const QString& taskId)
{
    // Grouped by task, one query per table; with a task id, that task's rows only.
    const QString where = taskId.isEmpty() ? QString() : QStringLiteral(" WHERE s.task_id = ?");
    const QVariantList one = taskId.isEmpty() ? QVariantList() : QVariantList{taskId};
    auto s =
        db.exec(QStringLiteral("SELECT s.task_id AS task, COUNT(*) AS solutions, "
                               "COALESCE(SUM(s.review_status = 'accepted'), 0) AS accepted, "
                               "COALESCE(SUM(p.best IS NOT NULL), 0) AS passing, MAX(p.best) AS best "
                               "FROM solutions s LEFT JOIN (SELECT solution_id, MAX(COALESCE(speedup, -1)) AS best "
                               "FROM verdicts WHERE status = 'PASSED' GROUP BY solution_id) p "
                               "ON p.solution_id = s.id") +
                    where + QStringLiteral(" GROUP BY s.task_id"),
                one);
    if (!s)
        return s.error();
    QHash<QString, TaskActivity> out;
    QSqlQuery sq = std::move(s).value();
    while (sq.next()) {
        TaskActivity& a = out[sq.value(QStringLiteral("task")).toString()];
        a.taskId = sq.value(QStringLiteral("task")).toString();
        a.solutions = sq.value(QStringLiteral("solutions")).toInt();
        a.acceptedSolutions = sq.value(QStringLiteral("accepted")).toInt();
        a.passingSolutions = sq.value(QStringLiteral("passing")).toInt();
        if (!sq.isNull(QStringLiteral("best")) && sq.value(QStringLiteral("best")).toDouble() >= 0)
            a.bestSpeedup = sq.value(QStringLiteral("best")).toDouble();
    }
    auto r = db.exec(QStringLiteral("SELECT task_id AS task, COUNT(*) AS runs, COALESCE(SUM(state = ?), 0) AS running, "
                                    "MAX(json_extract(totals, '$.best_speedup')) AS best FROM runs") +
                         (taskId.isEmpty() ? QString() : QStringLiteral(" WHERE task_id = ?")) +
                         QStringLiteral(" GROUP BY task_id"),
                     QVariantList{toString(RunState::Running)} + one);
    if (!r)
        return r.error();
    QSqlQuery rq = std::move(r).value();
    while (rq.next()) {
        TaskActivity& a = out[rq.value(QStringLiteral("task")).toString()];
        a.taskId = rq.value(QStringLiteral("task")).toString();
        a.runs = rq.value(QStringLiteral("runs")).toInt();
        a.runningRuns = rq.value(QStringLiteral("running")).toInt();
        if (!rq.isNull(QStringLiteral("best")))
            a.bestRunSpeedup = rq.value(QStringLiteral("best")).toDouble();
    }
    return out;
}

Result<TaskActivity> readTaskActivity(store::Database& db, const QString& taskId)
{
    auto all = readTaskActivities(db, taskId);
    if (!all)
        return all.error();
    TaskActivity a = all->value(taskId);
    a.taskId = taskId;
    return a;
}

}  // namespace km
