#include "store/VerdictStore.h"

#include "model/ScrubbedValues.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "util/Json.h"
#include "util/Logging.h"
#include "verify/VerdictJson.h"

#include <QCryptographicHash>
#include <QSqlQuery>

namespace km {

using store::Transaction;

namespace {
const QString kFindings = QStringLiteral("findings");
const QString kDiagnostics = QStringLiteral("diagnostics");
const QStringList kOrigins{QStringLiteral("manual"), QStringLiteral("agent"), QStringLiteral("import")};

QVariant nullable(const std::optional<double>& d)
{
    return d ? QVariant(*d) : QVariant();  // invalid: bound as NULL
}

QVariant columnOrNull(const QSqlQuery& q, int i)
{
    return q.isNull(i) ? QVariant() : q.value(i);
}

Error damaged(const QString& what, qint64 id, const QString& reason)
{
    const QString message = QStringLiteral("%1 %2 in the store is damaged: %3").arg(what).arg(id).arg(reason);
    qCWarning(lcStore).noquote() << message;
    return makeError(ErrorCode::Database, message);
}

Result<QVariantMap> jsonObject(const QVariant& column, const QString& name)
{
    json::ParseError e;
    const auto v = json::parse(column.toString().toUtf8(), &e);
    if (!v)
        return makeError(ErrorCode::Database, QStringLiteral("%1 is not JSON (line %2, column %3: %4)")
                                                  .arg(name)
                                                  .arg(e.line)
                                                  .arg(e.column)
                                                  .arg(e.reason));
    if (v->typeId() != QMetaType::QVariantMap)
        return makeError(ErrorCode::Database, QStringLiteral("%1 is not a JSON object").arg(name));
    return v->toMap();
}

const char* const kVerdictColumns = "id, solution_id, status, created_at, harness_version, executor, isolation, "
                                    "summary, environment, evidence, runtime_ms, ref_runtime_ms, speedup";

// A verdicts row read back through verdictFromVariant, which checks every field as it does for JSON.
Result<Verdict> verdictFromRow(const QSqlQuery& q)
{
    const qint64 id = q.value(0).toLongLong();
    auto environment = jsonObject(q.value(8), QStringLiteral("environment"));
    if (!environment)
        return damaged(QStringLiteral("verdict"), id, environment.error().message);
    auto evidence = jsonObject(q.value(9), QStringLiteral("evidence"));
    if (!evidence)
        return damaged(QStringLiteral("verdict"), id, evidence.error().message);
    QVariantMap harness = evidence.value();
    QVariantMap m{{QStringLiteral("id"), id},
                  {QStringLiteral("solution_id"), q.value(1).toLongLong()},
                  {QStringLiteral("status"), q.value(2).toString()},
                  {QStringLiteral("created_at"), q.value(3).toString()},
                  {QStringLiteral("harness_version"), q.value(4).toString()},
                  {QStringLiteral("executor"), q.value(5).toString()},
                  {QStringLiteral("isolation"), q.value(6).toString()},
                  {QStringLiteral("summary"), q.value(7).toString()},
                  {QStringLiteral("environment"), environment.value()},
                  {kFindings, harness.take(kFindings)},
                  {kDiagnostics, harness.take(kDiagnostics)},
                  {QStringLiteral("evidence"), harness},
                  {QStringLiteral("runtime_ms"), columnOrNull(q, 10)},
                  {QStringLiteral("ref_runtime_ms"), columnOrNull(q, 11)},
                  {QStringLiteral("speedup"), columnOrNull(q, 12)}};
    auto v = verdictFromVariant(m);
    if (!v)
        return damaged(QStringLiteral("verdict"), id, v.error().message);
    return v;
}

Solution solutionFromRow(const QSqlQuery& q)
{
    Solution s;
    s.id = q.value(0).toLongLong();
    s.taskId = q.value(1).toString();
    s.code = q.value(2).toString();
    s.codeHash = q.value(3).toString();
    s.origin = q.value(4).toString();
    s.createdAt = parseIsoUtc(q.value(5).toString()).value_or(QDateTime());
    return s;
}
const char* const kSolutionColumns = "id, task_id, code, code_hash, origin, created_at";
}  // namespace

Result<Solution> VerdictStore::addSolution(const QString& taskId, const QString& rawCode, const QString& origin,
                                           const QString& actor)
{
    const QString code = m_secrets.scrub(rawCode);
    if (!kOrigins.contains(origin))
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("unknown solution origin '%1' (manual, agent, import)").arg(origin));
    const QString hash =
        QString::fromLatin1(QCryptographicHash::hash(code.toUtf8(), QCryptographicHash::Sha256).toHex());
    Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto task = m_db.exec(QStringLiteral("SELECT 1 FROM tasks WHERE id = ?"), {taskId});
    if (!task)
        return task.error();
    if (!task.value().next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no task with id '%1'").arg(taskId));
    auto existing = m_db.exec(QStringLiteral("SELECT %1 FROM solutions WHERE task_id = ? AND code_hash = ?")
                                  .arg(QLatin1String(kSolutionColumns)),
                              {taskId, hash});
    if (!existing)
        return existing.error();
    if (existing.value().next())
        return solutionFromRow(existing.value());  // the same code again: nothing to write

    Solution s;
    s.taskId = taskId;
    s.code = code;
    s.codeHash = hash;
    s.origin = origin;
    const QString now = store::nowText();
    s.createdAt = parseIsoUtc(now).value_or(QDateTime());
    auto ins = m_db.exec(
        QStringLiteral("INSERT INTO solutions(task_id, code, code_hash, origin, created_at) VALUES (?,?,?,?,?)"),
        {taskId, code, hash, origin, now});
    if (!ins)
        return ins.error();
    s.id = ins.value().lastInsertId().toLongLong();
    if (Status st = store::appendAudit(m_db, actor, QStringLiteral("solution"), QString::number(s.id),
                                       QStringLiteral("created"), {},
                                       {{QStringLiteral("task_id"), taskId},
                                        {QStringLiteral("origin"), origin},
                                        {QStringLiteral("code_hash"), hash}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return s;
}

Result<Verdict> VerdictStore::addVerdict(qint64 solutionId, const Verdict& given, const QString& actor)
{
    const Verdict v = scrubbed(given, m_secrets);
    const QString status = toString(v.status);
    if (status.isEmpty()) {
        qCWarning(lcStore) << "refused a verdict with status" << int(v.status) << "outside the taxonomy";
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("verdict status %1 is outside the taxonomy").arg(int(v.status)));
    }
    for (const QString& key : {kFindings, kDiagnostics})
        if (v.evidence.contains(key))
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("the harness evidence must not carry '%1': the store keeps the verdict's "
                                            "own %1 under that key")
                                 .arg(key));
    Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto sol = m_db.exec(QStringLiteral("SELECT 1 FROM solutions WHERE id = ?"), {solutionId});
    if (!sol)
        return sol.error();
    if (!sol.value().next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no solution with id %1").arg(solutionId));

    Verdict stored = v;
    stored.solutionId = solutionId;
    const QString created = v.createdAt.isValid() ? isoUtc(v.createdAt) : store::nowText();
    stored.createdAt = parseIsoUtc(created).value_or(QDateTime());
    QVariantMap evidence = v.evidence;
    evidence.insert(kFindings, findingsToVariant(v.findings));
    evidence.insert(kDiagnostics, diagnosticsToVariant(v.diagnostics));
    auto ins = m_db.exec(QStringLiteral("INSERT INTO verdicts(solution_id, status, created_at, harness_version, "
                                        "executor, isolation, summary, environment, evidence, runtime_ms, "
                                        "ref_runtime_ms, speedup) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
                         {solutionId, status, created, v.harnessVersion, v.executor, v.isolation, v.summary,
                          QString::fromUtf8(json::write(v.environment)), QString::fromUtf8(json::write(evidence)),
                          nullable(v.runtimeMs), nullable(v.refRuntimeMs), nullable(v.speedup)});
    if (!ins)
        return ins.error();
    stored.id = ins.value().lastInsertId().toLongLong();
    if (Status st = store::appendAudit(m_db, actor, QStringLiteral("solution"), QString::number(solutionId),
                                       QStringLiteral("verified"), {},
                                       {{QStringLiteral("verdict_id"), stored.id}, {QStringLiteral("status"), status}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return stored;
}

Result<Verdict> VerdictStore::recordVerified(const QString& taskId, const QString& code, const QString& origin,
                                             const Verdict& v, const QString& actor)
{
    store::Transaction tx(m_db);
    if (!tx.started())
        return tx.started().error();
    auto solution = addSolution(taskId, code, origin, actor);
    if (!solution)
        return solution.error();
    auto stored = addVerdict(solution.value().id, v, actor);
    if (!stored)
        return stored.error();
    if (Status s = tx.commit(); !s)
        return s.error();
    return stored;
}

Result<std::optional<Verdict>> VerdictStore::verdict(qint64 id)
{
    auto q =
        m_db.exec(QStringLiteral("SELECT %1 FROM verdicts WHERE id = ?").arg(QLatin1String(kVerdictColumns)), {id});
    if (!q)
        return q.error();
    if (!q.value().next())
        return std::optional<Verdict>();
    auto v = verdictFromRow(q.value());
    if (!v)
        return v.error();
    return std::optional<Verdict>(std::move(v).value());
}

Result<std::optional<Solution>> VerdictStore::solution(qint64 id)
{
    auto q =
        m_db.exec(QStringLiteral("SELECT %1 FROM solutions WHERE id = ?").arg(QLatin1String(kSolutionColumns)), {id});
    if (!q)
        return q.error();
    if (!q.value().next())
        return std::optional<Solution>();
    return std::optional<Solution>(solutionFromRow(q.value()));
}

Result<QList<VerdictSummary>> VerdictStore::verdicts(const VerdictFilter& f)
{
    QString sql = QStringLiteral("SELECT v.id, v.solution_id, s.task_id, v.status, v.created_at, v.summary, v.speedup "
                                 "FROM verdicts v JOIN solutions s ON s.id = v.solution_id WHERE 1");
    QVariantList b;
    if (!f.taskId.isEmpty()) {
        sql += QStringLiteral(" AND s.task_id = ?");
        b << f.taskId;
    }
    if (f.solutionId != 0) {
        sql += QStringLiteral(" AND v.solution_id = ?");
        b << f.solutionId;
    }
    if (!f.statuses.isEmpty()) {
        QStringList marks;
        for (VerdictStatus st : f.statuses) {
            const QString name = toString(st);
            if (name.isEmpty())
                return makeError(ErrorCode::InvalidInput,
                                 QStringLiteral("verdict status %1 is outside the taxonomy").arg(int(st)));
            marks << QStringLiteral("?");
            b << name;
        }
        sql += QStringLiteral(" AND v.status IN (%1)").arg(marks.join(QLatin1Char(',')));
    }
    sql += QStringLiteral(" ORDER BY v.created_at DESC, v.id DESC");
    if (f.limit > 0) {
        sql += QStringLiteral(" LIMIT ?");
        b << f.limit;
    }
    auto q = m_db.exec(sql, b);
    if (!q)
        return q.error();
    QSqlQuery query = std::move(q).value();
    QList<VerdictSummary> out;
    while (query.next()) {
        VerdictSummary s;
        s.id = query.value(0).toLongLong();
        s.solutionId = query.value(1).toLongLong();
        s.taskId = query.value(2).toString();
        const auto status = verdictStatusFromString(query.value(3).toString());
        if (!status)  // the schema's CHECK makes this a damaged file
            return damaged(QStringLiteral("verdict"), s.id,
                           QStringLiteral("unknown status ") + query.value(3).toString());
        s.status = *status;
        s.createdAt = parseIsoUtc(query.value(4).toString()).value_or(QDateTime());
        s.summary = query.value(5).toString();
        if (!query.isNull(6))
            s.speedup = query.value(6).toDouble();
        out.append(s);
    }
    return out;
}

Result<std::optional<Verdict>> VerdictStore::latestVerdict(qint64 solutionId)
{
    if (solutionId <= 0)
        return std::optional<Verdict>();
    VerdictFilter f;
    f.solutionId = solutionId;
    f.limit = 1;
    auto list = verdicts(f);
    if (!list)
        return list.error();
    if (list.value().isEmpty())
        return std::optional<Verdict>();
    return verdict(list.value().first().id);
}

}  // namespace km
