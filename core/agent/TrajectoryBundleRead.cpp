// Trajectory bundles: the reader. Every check names where it failed, as a JSON path ("runs[2].steps[0]: ...").
#include "agent/TrajectoryBundle.h"

#include "util/Json.h"
#include "verify/VerdictJson.h"

#include <QRegularExpression>
#include <QSet>

namespace km {

namespace {
const QStringList kKinds{QStringLiteral("llm"), QStringLiteral("manual")};
const QStringList kStates{QStringLiteral("running"), QStringLiteral("completed"), QStringLiteral("interrupted"),
                          QStringLiteral("cancelled"), QStringLiteral("failed")};
const QStringList kStages{stageImplement(), stageRepair(), stageOptimise()};

bool isInteger(const QVariant& v)
{
    return v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Int;
}

QString alternatives(const QStringList& names)
{
    if (names.size() < 2)
        return names.join(QString());
    return names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + names.last();
}

// Typed fields of one JSON object; the first problem is kept, prefixed with the object's path. Null is absent.
class Fields {
public:
    Fields(const QVariantMap& m, QString where) : m_map(m), m_where(std::move(where)) {}

    QString text(const QString& key, bool required = false)
    {
        const QVariant v = m_map.value(key);
        if (!v.isValid()) {
            if (required)
                fail(QStringLiteral("%1 is missing").arg(key));
            return {};
        }
        if (v.typeId() != QMetaType::QString)
            fail(QStringLiteral("%1 is not a string").arg(key));
        return v.toString();
    }
    QString oneOf(const QString& key, const QStringList& allowed, const QString& fallback)
    {
        const QString v = text(key);
        if (v.isEmpty() && !fallback.isEmpty())
            return fallback;
        if (!allowed.contains(v))
            fail(QStringLiteral("%1 '%2' is not %3").arg(key, v, alternatives(allowed)));
        return v;
    }
    std::optional<qint64> integer(const QString& key)
    {
        const QVariant v = m_map.value(key);
        if (!v.isValid())
            return std::nullopt;
        if (!isInteger(v))
            fail(QStringLiteral("%1 is not an integer").arg(key));
        return v.toLongLong();
    }
    std::optional<double> number(const QString& key)
    {
        const QVariant v = m_map.value(key);
        if (!v.isValid())
            return std::nullopt;
        if (!isInteger(v) && v.typeId() != QMetaType::Double)
            fail(QStringLiteral("%1 is not a number").arg(key));
        return v.toDouble();
    }
    QVariantMap object(const QString& key)
    {
        const QVariant v = m_map.value(key);
        if (v.isValid() && v.typeId() != QMetaType::QVariantMap)
            fail(QStringLiteral("%1 is not an object").arg(key));
        return v.toMap();
    }
    QVariantList list(const QString& key, bool ofObjects = false)
    {
        const QVariant v = m_map.value(key);
        if (v.isValid() && v.typeId() != QMetaType::QVariantList)
            fail(QStringLiteral("%1 is not a list").arg(key));
        const QVariantList items = v.toList();
        for (qsizetype i = 0; ofObjects && i < items.size(); ++i)
            if (items[i].typeId() != QMetaType::QVariantMap)
                fail(QStringLiteral("%1[%2] is not an object").arg(key).arg(i));
        return items;
    }
    QDateTime time(const QString& key, bool required)
    {
        const QString t = text(key, required);
        if (t.isEmpty())
            return {};
        const auto parsed = parseIsoUtc(t);
        if (!parsed)
            fail(QStringLiteral("%1 '%2' is not an ISO 8601 time").arg(key, t));
        return parsed.value_or(QDateTime());
    }
    void fail(const QString& message)
    {
        if (!m_error)
            m_error = makeError(ErrorCode::InvalidInput,
                                m_where.isEmpty() ? message : QStringLiteral("%1: %2").arg(m_where, message));
    }
    const std::optional<Error>& error() const { return m_error; }

private:
    const QVariantMap& m_map;
    QString m_where;
    std::optional<Error> m_error;
};

Result<BundledStep> readStep(const QVariantMap& m, const QString& where)
{
    Fields f(m, where);
    BundledStep b;
    TrajectoryStep& s = b.step;
    const auto idx = f.integer(QStringLiteral("idx"));
    if (!idx || *idx < 0 || *idx > 1000000)
        f.fail(QStringLiteral("idx is missing or not an index (0, 1, ...)"));
    s.idx = int(idx.value_or(0));
    s.stage = f.oneOf(QStringLiteral("stage"), kStages, {});
    s.templateName = f.text(QStringLiteral("template"));
    s.messages = f.list(QStringLiteral("messages"), true);
    s.prompt = f.text(QStringLiteral("prompt"));
    s.reply = f.text(QStringLiteral("reply"));
    s.code = f.text(QStringLiteral("code"));
    s.diff = f.text(QStringLiteral("diff"));
    s.error = f.text(QStringLiteral("error"));
    s.guidance = f.list(QStringLiteral("guidance"));
    s.usage = withoutSecrets(f.object(QStringLiteral("usage")));
    s.tokensIn = f.integer(QStringLiteral("tokens_in")).value_or(0);
    s.tokensOut = f.integer(QStringLiteral("tokens_out")).value_or(0);
    s.latencyMs = f.integer(QStringLiteral("latency_ms")).value_or(0);
    s.verifyMs = f.integer(QStringLiteral("verify_ms")).value_or(0);
    s.status = f.text(QStringLiteral("status"));
    if (!s.status.isEmpty() && !verdictStatusFromString(s.status))
        f.fail(QStringLiteral("status '%1' is not a verdict status").arg(s.status));
    s.speedup = f.number(QStringLiteral("speedup"));
    s.summary = f.text(QStringLiteral("summary"));
    s.createdAt = f.time(QStringLiteral("created_at"), true);
    const QVariantMap verdict = f.object(QStringLiteral("verdict"));
    if (f.error())
        return *f.error();
    if (m.value(QStringLiteral("verdict")).isValid()) {
        auto v = verdictFromVariant(verdict);
        if (!v)
            return makeError(ErrorCode::InvalidInput, QStringLiteral("%1.verdict: %2").arg(where, v.error().message));
        const QString status = toString(v->status);
        if (s.code.isEmpty())
            return makeError(ErrorCode::InvalidInput, QStringLiteral("%1: a verdict without code").arg(where));
        if (!s.status.isEmpty() && s.status != status)
            return makeError(
                ErrorCode::InvalidInput,
                QStringLiteral("%1: status '%2' differs from its verdict's '%3'").arg(where, s.status, status));
        s.status = status;
        b.verdict = std::move(v).value();
    }
    return b;
}

Result<BundledRun> readRun(const QVariantMap& m, const QString& where)
{
    Fields f(m, where);
    BundledRun b;
    AgentRun& r = b.run;
    r.taskId = f.text(QStringLiteral("task_id"), true);
    if (r.taskId.isEmpty())
        f.fail(QStringLiteral("task_id is missing"));
    r.kind = f.oneOf(QStringLiteral("kind"), kKinds, QStringLiteral("llm"));
    r.model = f.text(QStringLiteral("model"));
    r.promptVersion = f.text(QStringLiteral("prompt_version"));
    r.settings = withoutSecrets(f.object(QStringLiteral("settings")));
    r.budgets = withoutSecrets(f.object(QStringLiteral("budgets")));
    r.totals = withoutSecrets(f.object(QStringLiteral("totals")));
    r.state = f.oneOf(QStringLiteral("state"), kStates, {});
    r.stage = f.oneOf(QStringLiteral("stage"), kStages, stageImplement());
    r.error = f.text(QStringLiteral("error"));
    r.startedAt = f.time(QStringLiteral("started_at"), true);
    r.endedAt = f.time(QStringLiteral("ended_at"), false);
    const auto best = f.integer(QStringLiteral("best_step_idx"));
    b.origin = f.text(QStringLiteral("origin"));
    static const QRegularExpression sha256(QStringLiteral("^[0-9a-f]{64}$"));
    if (!b.origin.isEmpty() && !sha256.match(b.origin).hasMatch())
        f.fail(QStringLiteral("origin '%1' is not a sha256 hex id").arg(b.origin));
    b.taskTitle = Fields(f.object(QStringLiteral("task")), where).text(QStringLiteral("title"));
    const QVariantList steps = f.list(QStringLiteral("steps"), true);
    if (f.error())
        return *f.error();
    QSet<int> seen;
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const QString at = QStringLiteral("%1.steps[%2]").arg(where).arg(i);
        auto s = readStep(steps[i].toMap(), at);
        if (!s)
            return s.error();
        if (seen.contains(s->step.idx))
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("%1: idx %2 appears twice").arg(at).arg(s->step.idx));
        seen.insert(s->step.idx);
        b.steps.append(std::move(s).value());
    }
    if (best) {
        if (!seen.contains(int(*best)))
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("%1: best_step_idx %2 names no step").arg(where).arg(*best));
        b.bestStepIdx = int(*best);
    }
    if (b.origin.isEmpty())
        b.origin = trajectoryOrigin(b);
    return b;
}

Error notJson(const QByteArray& bytes, const json::ParseError& e)
{
    qsizetype offset = 0;
    for (int line = 1; line < e.line && offset < bytes.size(); ++offset)
        if (bytes[offset] == '\n')
            ++line;
    return makeError(ErrorCode::InvalidInput, QStringLiteral("not valid JSON: line %1, column %2 (byte %3): %4")
                                                  .arg(e.line)
                                                  .arg(e.column)
                                                  .arg(offset + e.column - 1)
                                                  .arg(e.reason));
}
}  // namespace

Result<TrajectoryBundle> readTrajectoryBundle(const QByteArray& bytes)
{
    if (bytes.trimmed().isEmpty())
        return makeError(ErrorCode::InvalidInput, QStringLiteral("the file is empty"));
    json::ParseError pe;
    const auto doc = json::parse(bytes, &pe);
    if (!doc)
        return notJson(bytes, pe);
    const QVariantMap top = doc->toMap();
    if (doc->typeId() != QMetaType::QVariantMap || top.value(QStringLiteral("format")) != trajectoryBundleFormat())
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("not a %1 file (it has no \"format\": \"%1\")").arg(trajectoryBundleFormat()));
    Fields f(top, {});
    const auto version = f.integer(QStringLiteral("version"));
    if (f.error() || !version)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("version is missing or not an integer"));
    if (*version > kTrajectoryBundleVersion)
        return makeError(ErrorCode::Unsupported, QStringLiteral("version %1 is newer than this kmosaic reads (%2)")
                                                     .arg(*version)
                                                     .arg(kTrajectoryBundleVersion));
    if (*version < 1)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("version %1 is not a version (1, 2, ...)").arg(*version));
    TrajectoryBundle b;
    b.label = f.text(QStringLiteral("label"));
    b.exportedAt = f.time(QStringLiteral("exported_at"), false);
    b.exportedBy = f.text(QStringLiteral("exported_by"));
    if (!top.contains(QStringLiteral("runs")))
        f.fail(QStringLiteral("runs is missing"));
    const QVariantList runs = f.list(QStringLiteral("runs"), true);
    if (f.error())
        return *f.error();
    for (qsizetype i = 0; i < runs.size(); ++i) {
        auto r = readRun(runs[i].toMap(), QStringLiteral("runs[%1]").arg(i));
        if (!r)
            return r.error();
        b.runs.append(std::move(r).value());
    }
    return b;
}

}  // namespace km
