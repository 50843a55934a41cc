// kmosaic solutions list / review / history: the solution review queue and its decisions, through the core's
// SolutionReviewService (the workbench's solution review uses the same service).
#include "cli/Commands.h"
#include "cli/Options.h"
#include "cli/StoreOpener.h"
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

QString speedupText(const std::optional<double>& s)
{
    return s ? QStringLiteral("%1x").arg(*s, 0, 'f', 2) : QStringLiteral("-");
}
}  // namespace

int solutionsListCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("task"), QStringLiteral("Solutions of this task."), QStringLiteral("ID")});
    p.addOption({QStringLiteral("status"), QStringLiteral("Review status (comma-separated)."), QStringLiteral("S")});
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
            io.out << QString::fromUtf8(json::write(QVariantMap{
                          {QStringLiteral("id"), s.id},
                          {QStringLiteral("task_id"), s.taskId},
                          {QStringLiteral("origin"), s.origin},
                          {QStringLiteral("created_at"), isoUtc(s.createdAt)},
                          {QStringLiteral("review_status"), toString(s.reviewStatus)},
                          {QStringLiteral("verdicts"), s.verdicts},
                          {QStringLiteral("latest_status"), s.latestStatus},
                          {QStringLiteral("latest_speedup"), s.latestSpeedup ? QVariant(*s.latestSpeedup) : QVariant()},
                      }))
                   << "\n";
            continue;
        }
        rows.append({QString::number(s.id), s.taskId, s.origin, toString(s.reviewStatus), QString::number(s.verdicts),
                     s.latestStatus.isEmpty() ? QStringLiteral("-") : s.latestStatus, speedupText(s.latestSpeedup),
                     isoUtc(s.createdAt)});
    }
    if (!p.isSet(QStringLiteral("json"))) {
        if (rows.isEmpty())
            io.err << "kmosaic solutions list: no solution matches\n";
        else
            io.out << formatTable({QStringLiteral("ID"), QStringLiteral("TASK"), QStringLiteral("ORIGIN"),
                                   QStringLiteral("REVIEW"), QStringLiteral("VERDICTS"), QStringLiteral("LATEST"),
                                   QStringLiteral("SPEEDUP"), QStringLiteral("CREATED")},
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
    TaskStore* store = opener.open(io);
    if (!store)
        return Failed;
    auto r = SolutionReviewService(store->database())
                 .decide(id.value(), *status, reviewerFrom(p), p.value(QStringLiteral("reason")),
                         p.value(QStringLiteral("comment")));
    if (!r) {
        io.err << "kmosaic solutions review: " << r.error().message << "\n";
        return Failed;
    }
    io.out << "solution " << r->solutionId << " (" << r->taskId << "): " << toString(r->from) << " -> "
           << toString(r->to) << " by " << r->reviewer << "\n";
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
            io.out << QString::fromUtf8(json::write(QVariantMap{{QStringLiteral("id"), r.id},
                                                                {QStringLiteral("solution_id"), r.solutionId},
                                                                {QStringLiteral("task_id"), r.taskId},
                                                                {QStringLiteral("reviewer"), r.reviewer},
                                                                {QStringLiteral("at"), isoUtc(r.at)},
                                                                {QStringLiteral("from"), toString(r.from)},
                                                                {QStringLiteral("to"), toString(r.to)},
                                                                {QStringLiteral("reason"), r.reason},
                                                                {QStringLiteral("comment"), r.comment}}))
                   << "\n";
            continue;
        }
        rows.append({isoUtc(r.at), r.reviewer, toString(r.from) + QStringLiteral(" -> ") + toString(r.to), r.reason,
                     r.comment});
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

}  // namespace km::cli
