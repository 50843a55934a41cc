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

Result<TaskActivity> readTaskActivity(store::Database& db, const QString& taskId)
{
    TaskActivity a;
    a.taskId = taskId;
    auto s = db.exec(QStringLiteral("SELECT COUNT(*) AS solutions, "
                                    "COALESCE(SUM(s.review_status = 'accepted'), 0) AS accepted, "
                                    "COALESCE(SUM(EXISTS (SELECT 1 FROM verdicts v WHERE v.solution_id = s.id AND "
                                    "v.status = 'PASSED')), 0) AS passing, "
                                    "(SELECT MAX(v.speedup) FROM verdicts v JOIN solutions t ON t.id = v.solution_id "
                                    "WHERE t.task_id = ? AND v.status = 'PASSED') AS best "
                                    "FROM solutions s WHERE s.task_id = ?"),
                     {taskId, taskId});
    if (!s)
        return s.error();
    QSqlQuery sq = std::move(s).value();
    if (sq.next()) {
        a.solutions = sq.value(QStringLiteral("solutions")).toInt();
        a.acceptedSolutions = sq.value(QStringLiteral("accepted")).toInt();
        a.passingSolutions = sq.value(QStringLiteral("passing")).toInt();
        if (!sq.isNull(QStringLiteral("best")))
            a.bestSpeedup = sq.value(QStringLiteral("best")).toDouble();
    }
    auto r = db.exec(QStringLiteral("SELECT COUNT(*) AS runs, COALESCE(SUM(state = ?), 0) AS running, "
                                    "MAX(json_extract(totals, '$.best_speedup')) AS best FROM runs WHERE task_id = ?"),
                     {toString(RunState::Running), taskId});
    if (!r)
        return r.error();
    QSqlQuery rq = std::move(r).value();
    if (rq.next()) {
        a.runs = rq.value(QStringLiteral("runs")).toInt();
        a.runningRuns = rq.value(QStringLiteral("running")).toInt();
        if (!rq.isNull(QStringLiteral("best")))
            a.bestRunSpeedup = rq.value(QStringLiteral("best")).toDouble();
    }
    return a;
}

}  // namespace km
