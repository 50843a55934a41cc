// kmosaic solutions list / review / history: the solution review queue and its decisions, through the core's
// SolutionReviewService and its acceptance gate (the workbench's solution review uses the same service).
#include "cli/Commands.h"
#include "cli/Options.h"
#include "cli/SolutionText.h"
#include "cli/StoreOpener.h"
#include "cli/VerdictText.h"
#include "model/VerdictCodec.h"
#include "services/SolutionReviewService.h"
#include "store/TaskStore.h"
#include "util/Json.h"

namespace km::cli {

namespace {
Result<qint64> solutionId(const QCommandLineParser& p, const QString& command, Io io)
{
    bool ok = false;
    const qint64 id = p.positionalArguments().value(0).toLongLong(&ok);
    if (p.positionalArguments().size() != 1 || !ok || id <= 0) {
        io.err << "kmosaic " << command << ": give the id of one solution (kmosaic solutions list)\n";
        return makeError(ErrorCode::InvalidInput, {});
    }
    return id;
}

// "a,b" split, trimmed, each checked by `valid`; false (and the message on io.err) on the first bad one.
bool listOption(const QCommandLineParser& p, const QString& name, const std::function<bool(const QString&)>& valid,
                const char* error, QStringList& out, Io io)
{
    for (const QString& part : p.value(name).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (!valid(part.trimmed())) {
            io.err << "kmosaic solutions list: " << error << "\n";
            return false;
        }
        out.append(part.trimmed());
    }
    return true;
}
}  // namespace

int solutionsListCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("task"), QStringLiteral("Solutions of this task."), QStringLiteral("ID")});
    p.addOption({QStringLiteral("status"), QStringLiteral("Review status (comma-separated)."), QStringLiteral("S")});
    p.addOption({QStringLiteral("verdict"),
                 QStringLiteral("Latest verdict status (comma-separated; NONE: not verified)."), QStringLiteral("V")});
    p.addOption(
        {QStringLiteral("origin"), QStringLiteral("manual, agent, import (comma-separated)."), QStringLiteral("O")});
    p.addOption(
        {QStringLiteral("reviewed-by"), QStringLiteral("Whose decision was the latest."), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("limit"), QStringLiteral("At most N solutions."), QStringLiteral("N")});
    p.addOption({QStringLiteral("json"), QStringLiteral("One JSON object per solution.")});
    if (const auto exit = parseOrExit(p, QStringLiteral("solutions list"), args, io))
        return *exit;
    SolutionFilter f;
    f.taskId = p.value(QStringLiteral("task"));
    for (const QString& part : p.value(QStringLiteral("status")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto s = reviewStatusFromString(part.trimmed());
        if (!s) {
            io.err
                << "kmosaic solutions list: --status must be draft, in_review, accepted, rejected or needs_changes\n";
            return Usage;
        }
        f.reviewStatuses.append(*s);
    }
    if (!listOption(
            p, QStringLiteral("verdict"),
            [](const QString& v) { return v == QLatin1String("NONE") || verdictStatusFromString(v).has_value(); },
            "--verdict must be verdict statuses (PASSED, COMPILE_ERROR, ...) or NONE", f.verdictStatuses, io))
        return Usage;
    static const QStringList origins{QStringLiteral("manual"), QStringLiteral("agent"), QStringLiteral("import")};
    if (!listOption(
            p, QStringLiteral("origin"), [](const QString& o) { return origins.contains(o); },
            "--origin must be manual, agent or import", f.origins, io))
        return Usage;
    f.reviewer = p.value(QStringLiteral("reviewed-by"));
    if (p.isSet(QStringLiteral("limit"))) {
        bool ok = false;
        f.limit = p.value(QStringLiteral("limit")).toInt(&ok);
        if (!ok || f.limit <= 0) {
            io.err << "kmosaic solutions list: --limit needs a positive number\n";
            return Usage;
        }
    }
    TaskStore* store = opener.open(io);
    if (!store)
        return Failed;
    auto list = SolutionReviewService(store->database()).list(f);
    if (!list) {
        io.err << "kmosaic solutions list: " << list.error().message << "\n";
        return Failed;
    }
    QList<QStringList> rows;
    for (const SolutionListing& s : list.value()) {
        if (p.isSet(QStringLiteral("json"))) {
            io.out << QString::fromUtf8(json::write(listingToVariant(s))) << "\n";
            continue;
        }
        rows.append({QString::number(s.id), s.taskId, s.origin, toString(s.reviewStatus),
                     s.latestStatus.isEmpty() ? QStringLiteral("-") : s.latestStatus, speedupText(s.creditedSpeedup()),
                     s.gpuName.isEmpty() ? (s.device.isEmpty() ? QStringLiteral("-") : s.device) : s.gpuName,
                     s.harnessVersion.isEmpty() ? QStringLiteral("-") : s.harnessVersion,
                     s.lastReviewer.isEmpty() ? QStringLiteral("-") : s.lastReviewer, gateText(s.unmetGate)});
    }
    if (!p.isSet(QStringLiteral("json"))) {
        if (rows.isEmpty())
            io.err << "kmosaic solutions list: no solution matches\n";
        else
            io.out << formatTable({QStringLiteral("ID"), QStringLiteral("TASK"), QStringLiteral("ORIGIN"),
                                   QStringLiteral("REVIEW"), QStringLiteral("LATEST"), QStringLiteral("SPEEDUP"),
                                   QStringLiteral("GPU"), QStringLiteral("HARNESS"), QStringLiteral("REVIEWER"),
                                   QStringLiteral("GATE")},
                                  rows);
    }
    return Ok;
}

int solutionsReviewCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("status"), QStringLiteral("accepted, rejected, needs_changes (or draft, in_review)."),
                 QStringLiteral("S")});
    p.addOption({QStringLiteral("reason"), QStringLiteral("Reason code or text."), QStringLiteral("TEXT")});
    p.addOption({QStringLiteral("comment"), QStringLiteral("Free comment."), QStringLiteral("TEXT")});
    p.addOption({QStringLiteral("override"),
                 QStringLiteral("Accept past the acceptance gate's unmet rules (needs --reason or --comment text).")});
    addReviewerOption(p);
    if (const auto exit = parseOrExit(p, QStringLiteral("solutions review"), args, io))
        return *exit;
    const auto id = solutionId(p, QStringLiteral("solutions review"), io);
    if (!id)
        return Usage;
    const auto status = reviewStatusFromString(p.value(QStringLiteral("status")));
    if (!status) {
        io.err << "kmosaic solutions review: --status must be one of draft, in_review, accepted, rejected, "
                  "needs_changes\n";
        return Usage;
    }
    const bool override = p.isSet(QStringLiteral("override"));
    if (override && *status != ReviewStatus::Accepted) {
        io.err << "kmosaic solutions review: --override is for --status accepted (only accepting has a gate)\n";
        return Usage;
    }
    if (override && p.value(QStringLiteral("reason")).trimmed().isEmpty() &&
        p.value(QStringLiteral("comment")).trimmed().isEmpty()) {
        io.err << "kmosaic solutions review: --override needs a written reason: give --reason or --comment text\n";
        return Usage;
    }
    TaskStore* store = opener.open(io);
    if (!store)
        return Failed;
    SolutionReviewService service(store->database());
    // The rules the override passes, named before the decision (decide() records their ids).
    QList<GateRule> unmet;
    if (override) {
        auto gate = service.gate(id.value());
        if (!gate) {
            io.err << "kmosaic solutions review: " << gate.error().message << "\n";
            return Failed;
        }
        unmet = gate.value();
    }
    auto r = service.decide(id.value(), *status, reviewerFrom(p), p.value(QStringLiteral("reason")),
                            p.value(QStringLiteral("comment")), override);
    if (!r) {
        io.err << "kmosaic solutions review: " << r.error().message << "\n";
        return Failed;
    }
    io.out << "solution " << r->solutionId << " (" << r->taskId << "): " << toString(r->from) << " -> "
           << toString(r->to) << " by " << r->reviewer << "\n";
    if (r->isOverride()) {
        io.out << "overrode the acceptance gate:\n";
        for (const GateRule& rule : unmet)
            io.out << "  " << rule.id << ": " << rule.message << "\n";
    }
    return Ok;
}

int solutionsHistoryCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("json"), QStringLiteral("One JSON object per decision.")});
    if (const auto exit = parseOrExit(p, QStringLiteral("solutions history"), args, io))
        return *exit;
    const auto id = solutionId(p, QStringLiteral("solutions history"), io);
    if (!id)
        return Usage;
    TaskStore* store = opener.open(io);
    if (!store)
        return Failed;
    auto history = SolutionReviewService(store->database()).history(id.value());
    if (!history) {
        io.err << "kmosaic solutions history: " << history.error().message << "\n";
        return Failed;
    }
    QList<QStringList> rows;
    for (const ReviewRecord& r : history.value()) {
        if (p.isSet(QStringLiteral("json"))) {
            io.out << QString::fromUtf8(json::write(reviewToVariant(r))) << "\n";
            continue;
        }
        rows.append({isoUtc(r.at), r.reviewer, decisionText(r), r.reason, r.comment});
    }
    if (!p.isSet(QStringLiteral("json"))) {
        if (rows.isEmpty())
            io.out << "solution " << id.value() << ": no decision yet\n";
        else
            io.out << formatTable({QStringLiteral("AT"), QStringLiteral("REVIEWER"), QStringLiteral("DECISION"),
                                   QStringLiteral("REASON"), QStringLiteral("COMMENT")},
                                  rows);
    }
    return Ok;
}

int solutionsShowCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("json"), QStringLiteral("One JSON object: solution, code, verdicts, gate, history.")});
    if (const auto exit = parseOrExit(p, QStringLiteral("solutions show"), args, io))
        return *exit;
    const auto id = solutionId(p, QStringLiteral("solutions show"), io);
    if (!id)
        return Usage;
    TaskStore* store = opener.open(io);
    if (!store)
        return Failed;
    auto d = SolutionReviewService(store->database()).detail(id.value());
    if (!d) {
        io.err << "kmosaic solutions show: " << d.error().message << "\n";
        return Failed;
    }
    const Solution& s = d->solution;
    if (p.isSet(QStringLiteral("json"))) {
        QVariantList verdicts;
        for (const Verdict& v : d->verdicts)
            verdicts.append(verdictToVariant(v));
        QVariantList history;
        for (const ReviewRecord& r : d->history)
            history.append(reviewToVariant(r));
        io.out << QString::fromUtf8(json::write(
                      QVariantMap{{QStringLiteral("id"), s.id},
                                  {QStringLiteral("task_id"), s.taskId},
                                  {QStringLiteral("origin"), s.origin},
                                  {QStringLiteral("created_at"), isoUtc(s.createdAt)},
                                  {QStringLiteral("code_hash"), s.codeHash},
                                  {QStringLiteral("code"), s.code},
                                  {QStringLiteral("review_status"), toString(d->reviewStatus)},
                                  {QStringLiteral("parent_id"), d->parentId ? QVariant(d->parentId) : QVariant()},
                                  {QStringLiteral("verdicts"), verdicts},
                                  {QStringLiteral("gate_ok"), d->unmetGate.isEmpty()},
                                  {QStringLiteral("gate"), gateToVariant(d->unmetGate)},
                                  {QStringLiteral("history"), history}}))
               << "\n";
        return Ok;
    }
    io.out << "solution " << s.id << " of " << s.taskId << " (" << s.origin << ", " << isoUtc(s.createdAt)
           << "): " << toString(d->reviewStatus) << "\n";
    if (d->parentId)
        io.out << "fixed from solution " << d->parentId << "\n";
    if (d->unmetGate.isEmpty()) {
        io.out << "gate: met (it can be accepted)\n";
    } else {
        io.out << "gate: not met (accepting needs --override and a written reason)\n";
        for (const GateRule& r : d->unmetGate)
            io.out << "  " << r.id << ": " << r.message << "\n";
    }
    io.out << "\nverdicts (newest first):\n";
    if (d->verdicts.isEmpty()) {
        io.out << "  none: verify it (kmosaic verify)\n";
    } else {
        QList<QStringList> rows;
        for (const Verdict& v : d->verdicts)
            rows.append({QString::number(v.id), toString(v.status), isoUtc(v.createdAt), v.harnessVersion,
                         v.evidence.value(QStringLiteral("device")).toString(), speedupText(v.speedup), v.summary});
        io.out << formatTable({QStringLiteral("ID"), QStringLiteral("STATUS"), QStringLiteral("AT"),
                               QStringLiteral("HARNESS"), QStringLiteral("DEVICE"), QStringLiteral("SPEEDUP"),
                               QStringLiteral("SUMMARY")},
                              rows);
    }
    io.out << "\nhistory:\n";
    if (d->history.isEmpty())
        io.out << "  no decision yet\n";
    for (const ReviewRecord& r : d->history)
        io.out << "  " << isoUtc(r.at) << " " << r.reviewer << ": " << decisionText(r)
               << (r.reason.isEmpty() ? QString() : QStringLiteral(" [%1]").arg(r.reason))
               << (r.comment.isEmpty() ? QString() : QStringLiteral(" %1").arg(r.comment)) << "\n";
    io.out << "\ncode:\n" << s.code;
    if (!s.code.endsWith(QLatin1Char('\n')))
        io.out << "\n";
    return Ok;
}

}  // namespace km::cli
