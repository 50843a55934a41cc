#pragma once
// Verdicts as JSON-ready QVariantMaps: the `--json` output of the CLI and what the store keeps in its evidence
// column. Lossless: verdictFromVariant(verdictToVariant(v)) gives v back. Pure functions, any thread.

#include "model/Verdict.h"
#include "util/Result.h"

#include <QVariantList>

namespace km {
namespace json {
class Fields;
}

// {id, solution_id, status, created_at (ISO 8601 UTC), harness_version, executor, isolation, summary, environment,
//  evidence, findings, diagnostics, runtime_ms, ref_runtime_ms, speedup}; absent timings are null.
QVariantMap verdictToVariant(const Verdict& v);
// Refuses a status outside the taxonomy, a malformed time and values of the wrong type, naming the field.
Result<Verdict> verdictFromVariant(const QVariantMap& m);

// [{check, severity, line, message}]
QVariantList findingsToVariant(const QList<Finding>& findings);
Result<QList<Finding>> findingsFromVariant(const QVariant& list);
// [{severity, line, generated_file, generated_line, message}]
QVariantList diagnosticsToVariant(const QList<SolutionDiagnostic>& diagnostics);
Result<QList<SolutionDiagnostic>> diagnosticsFromVariant(const QVariant& list);

// ISO 8601 in UTC with milliseconds ("2025-03-01T12:00:00.000Z"); empty for an invalid time.
QString isoUtc(const QDateTime& t);
// Reads isoUtc's text (and any ISO 8601 time with an offset) back; nullopt when the text is no time.
std::optional<QDateTime> parseIsoUtc(const QString& text);
// A time field of a JSON object in parseIsoUtc's form; an invalid QDateTime when absent (a problem on `fields`
// when it is required) or when it is no time (a problem: "KEY 'TEXT' is not an ISO 8601 time").
QDateTime isoTimeField(json::Fields& fields, const QString& key, bool required = false);

}  // namespace km
