#include "store/rows/VerdictRows.h"

#include "model/VerdictCodec.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/Row.h"
#include "store/StoreErrors.h"
#include "util/Json.h"
#include "util/Logging.h"

namespace km::store {

namespace {
const QString kFindings = QStringLiteral("findings");
const QString kDiagnostics = QStringLiteral("diagnostics");
const char* const kVerdictColumns = "id, solution_id, status, created_at, harness_version, executor, isolation, "
                                    "summary, environment, evidence, runtime_ms, ref_runtime_ms, speedup";

QVariant nullable(const std::optional<double>& d)
{
    return d ? QVariant(*d) : QVariant();  // invalid: bound as NULL
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

// A verdicts row read back through verdictFromVariant, which checks every field as it does for JSON.
Result<Verdict> verdictFromRow(const QSqlQuery& q)
{
    Row row(q);  // one row per query
    const qint64 id = row.integer("id");
    auto environment = jsonObject(row.value("environment"), QStringLiteral("environment"));
    if (!environment)
        return damagedRow(QStringLiteral("verdict"), id, environment.error().message);
    auto evidence = jsonObject(row.value("evidence"), QStringLiteral("evidence"));
    if (!evidence)
        return damagedRow(QStringLiteral("verdict"), id, evidence.error().message);
    QVariantMap harness = evidence.value();
    auto orNull = [&row](const char* column) {
        return row.isNull(column) ? QVariant() : row.value(column);
    };
    QVariantMap m{{QStringLiteral("id"), id},
                  {QStringLiteral("solution_id"), row.integer("solution_id")},
                  {QStringLiteral("status"), row.text("status")},
                  {QStringLiteral("created_at"), row.text("created_at")},
                  {QStringLiteral("harness_version"), row.text("harness_version")},
                  {QStringLiteral("executor"), row.text("executor")},
                  {QStringLiteral("isolation"), row.text("isolation")},
                  {QStringLiteral("summary"), row.text("summary")},
                  {QStringLiteral("environment"), environment.value()},
                  {kFindings, harness.take(kFindings)},
                  {kDiagnostics, harness.take(kDiagnostics)},
                  {QStringLiteral("evidence"), harness},
                  {QStringLiteral("runtime_ms"), orNull("runtime_ms")},
                  {QStringLiteral("ref_runtime_ms"), orNull("ref_runtime_ms")},
                  {QStringLiteral("speedup"), orNull("speedup")}};
    if (Status st = row.status(); !st)
        return st.error();
    auto v = verdictFromVariant(m);
    if (!v)
        return damagedRow(QStringLiteral("verdict"), id, v.error().message);
    return v;
}
}  // namespace

Status checkVerdict(const Verdict& v)
{
    if (toString(v.status).isEmpty()) {
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
    return {};
}

Result<Verdict> writeVerdict(Database& db, qint64 solutionId, const Verdict& v, const QString& actor)
{
    if (Status st = checkVerdict(v); !st)
        return st.error();
    const QString status = toString(v.status);
    Transaction tx(db);
    if (!tx.started())
        return tx.started().error();
    auto sol = db.exec(QStringLiteral("SELECT 1 FROM solutions WHERE id = ?"), {solutionId});
    if (!sol)
        return sol.error();
    if (!sol.value().next())
        return makeError(ErrorCode::NotFound, QStringLiteral("no solution with id %1").arg(solutionId));

    Verdict stored = v;
    stored.solutionId = solutionId;
    const QString created = v.createdAt.isValid() ? isoUtc(v.createdAt) : nowText();
    stored.createdAt = parseIsoUtc(created).value_or(QDateTime());
    QVariantMap evidence = v.evidence;
    evidence.insert(kFindings, findingsToVariant(v.findings));
    evidence.insert(kDiagnostics, diagnosticsToVariant(v.diagnostics));
    auto ins = db.exec(QStringLiteral("INSERT INTO verdicts(solution_id, status, created_at, harness_version, "
                                      "executor, isolation, summary, environment, evidence, runtime_ms, "
                                      "ref_runtime_ms, speedup) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
                       {solutionId, status, created, v.harnessVersion, v.executor, v.isolation, v.summary,
                        QString::fromUtf8(json::write(v.environment)), QString::fromUtf8(json::write(evidence)),
                        nullable(v.runtimeMs), nullable(v.refRuntimeMs), nullable(v.speedup)});
    if (!ins)
        return ins.error();
    stored.id = ins.value().lastInsertId().toLongLong();
    if (Status st =
            appendAudit(db, actor, QStringLiteral("solution"), QString::number(solutionId), QStringLiteral("verified"),
                        {}, {{QStringLiteral("verdict_id"), stored.id}, {QStringLiteral("status"), status}});
        !st)
        return st.error();
    if (Status st = tx.commit(); !st)
        return st.error();
    return stored;
}

Result<std::optional<Verdict>> readVerdict(Database& db, qint64 id)
{
    auto q = db.exec(QStringLiteral("SELECT %1 FROM verdicts WHERE id = ?").arg(QLatin1String(kVerdictColumns)), {id});
    if (!q)
        return q.error();
    if (!q.value().next())
        return std::optional<Verdict>();
    auto v = verdictFromRow(q.value());
    if (!v)
        return v.error();
    return std::optional<Verdict>(std::move(v).value());
}

}  // namespace km::store
