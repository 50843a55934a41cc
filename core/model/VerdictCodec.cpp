#include "model/VerdictCodec.h"

#include "util/JsonFields.h"

namespace km {

namespace {
const QString kFindings = QStringLiteral("findings");
const QString kDiagnostics = QStringLiteral("diagnostics");

QVariant optionalNumber(const std::optional<double>& d)
{
    return d ? QVariant(*d) : QVariant();
}

using json::Fields;

Result<QVariantList> objectList(const QVariant& list, const QString& name)
{
    if (!list.isValid())
        return QVariantList();
    if (list.typeId() != QMetaType::QVariantList)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1 is not a list").arg(name));
    const QVariantList items = list.toList();
    for (qsizetype i = 0; i < items.size(); ++i)
        if (items[i].typeId() != QMetaType::QVariantMap)
            return makeError(ErrorCode::InvalidInput, QStringLiteral("%1[%2] is not an object").arg(name).arg(i));
    return items;
}
}  // namespace

QString isoUtc(const QDateTime& t)
{
    return t.isValid() ? t.toUTC().toString(Qt::ISODateWithMs) : QString();
}

std::optional<QDateTime> parseIsoUtc(const QString& text)
{
    QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!t.isValid())
        return std::nullopt;
    return t.toUTC();
}

QVariantList findingsToVariant(const QList<Finding>& findings)
{
    QVariantList out;
    for (const Finding& f : findings)
        out.append(QVariantMap{{QStringLiteral("check"), f.check},
                               {QStringLiteral("severity"), toString(f.severity)},
                               {QStringLiteral("line"), qint64(f.line)},
                               {QStringLiteral("message"), f.message}});
    return out;
}

Result<QList<Finding>> findingsFromVariant(const QVariant& list)
{
    auto items = objectList(list, kFindings);
    if (!items)
        return items.error();
    QList<Finding> out;
    for (qsizetype i = 0; i < items->size(); ++i) {
        const QVariantMap m = items->at(i).toMap();
        Fields r(m, QStringLiteral("findings[%1].").arg(i));
        Finding f;
        f.check = r.text(QStringLiteral("check"));
        const QString severity = r.text(QStringLiteral("severity"));
        if (severity == toString(Finding::Severity::Warning))
            f.severity = Finding::Severity::Warning;
        else if (severity != toString(Finding::Severity::Error))
            r.fail(QStringLiteral("severity '%1' is not error or warning").arg(severity));
        f.line = int(r.integer(QStringLiteral("line")).value_or(0));
        f.message = r.text(QStringLiteral("message"));
        if (r.error())
            return *r.error();
        out.append(f);
    }
    return out;
}

QVariantList diagnosticsToVariant(const QList<SolutionDiagnostic>& diagnostics)
{
    QVariantList out;
    for (const SolutionDiagnostic& d : diagnostics)
        out.append(QVariantMap{{QStringLiteral("severity"), d.severity},
                               {QStringLiteral("line"), qint64(d.line)},
                               {QStringLiteral("generated_file"), d.generatedFile},
                               {QStringLiteral("generated_line"), qint64(d.generatedLine)},
                               {QStringLiteral("message"), d.message}});
    return out;
}

Result<QList<SolutionDiagnostic>> diagnosticsFromVariant(const QVariant& list)
{
    auto items = objectList(list, kDiagnostics);
    if (!items)
        return items.error();
    QList<SolutionDiagnostic> out;
    for (qsizetype i = 0; i < items->size(); ++i) {
        const QVariantMap m = items->at(i).toMap();
        Fields r(m, QStringLiteral("diagnostics[%1].").arg(i));
        SolutionDiagnostic d;
        d.severity = r.text(QStringLiteral("severity"));
        d.line = int(r.integer(QStringLiteral("line")).value_or(0));
        d.generatedFile = r.text(QStringLiteral("generated_file"));
        d.generatedLine = int(r.integer(QStringLiteral("generated_line")).value_or(0));
        d.message = r.text(QStringLiteral("message"));
        if (r.error())
            return *r.error();
        out.append(d);
    }
    return out;
}

QVariantMap verdictToVariant(const Verdict& v)
{
    return {{QStringLiteral("id"), v.id},
            {QStringLiteral("solution_id"), v.solutionId},
            {QStringLiteral("status"), toString(v.status)},
            {QStringLiteral("created_at"), isoUtc(v.createdAt)},
            {QStringLiteral("harness_version"), v.harnessVersion},
            {QStringLiteral("executor"), v.executor},
            {QStringLiteral("isolation"), v.isolation},
            {QStringLiteral("summary"), v.summary},
            {QStringLiteral("environment"), v.environment},
            {QStringLiteral("evidence"), v.evidence},
            {kFindings, findingsToVariant(v.findings)},
            {kDiagnostics, diagnosticsToVariant(v.diagnostics)},
            {QStringLiteral("runtime_ms"), optionalNumber(v.runtimeMs)},
            {QStringLiteral("ref_runtime_ms"), optionalNumber(v.refRuntimeMs)},
            {QStringLiteral("speedup"), optionalNumber(v.speedup)}};
}

Result<Verdict> verdictFromVariant(const QVariantMap& m)
{
    Fields r(m, QString());
    Verdict v;
    v.id = r.integer(QStringLiteral("id")).value_or(0);
    v.solutionId = r.integer(QStringLiteral("solution_id")).value_or(0);
    const QString status = r.text(QStringLiteral("status"));
    if (const auto s = verdictStatusFromString(status))
        v.status = *s;
    else
        r.fail(QStringLiteral("status '%1' is not a verdict status").arg(status));
    v.createdAt = isoTimeField(r, QStringLiteral("created_at"));
    v.harnessVersion = r.text(QStringLiteral("harness_version"));
    v.executor = r.text(QStringLiteral("executor"));
    v.isolation = r.text(QStringLiteral("isolation"));
    v.summary = r.text(QStringLiteral("summary"));
    v.environment = r.object(QStringLiteral("environment"));
    v.evidence = r.object(QStringLiteral("evidence"));
    v.runtimeMs = r.number(QStringLiteral("runtime_ms"));
    v.refRuntimeMs = r.number(QStringLiteral("ref_runtime_ms"));
    v.speedup = r.number(QStringLiteral("speedup"));
    if (auto f = findingsFromVariant(m.value(kFindings)))
        v.findings = std::move(f).value();
    else
        r.fail(f.error());
    if (auto d = diagnosticsFromVariant(m.value(kDiagnostics)))
        v.diagnostics = std::move(d).value();
    else
        r.fail(d.error());
    if (r.error())
        return *r.error();
    return v;
}

QDateTime isoTimeField(json::Fields& fields, const QString& key, bool required)
{
    const QString t = fields.text(key, required);
    if (t.isEmpty())
        return {};
    const auto parsed = parseIsoUtc(t);
    if (!parsed)
        fields.fail(QStringLiteral("%1 '%2' is not an ISO 8601 time").arg(key, t));
    return parsed.value_or(QDateTime());
}

}  // namespace km
