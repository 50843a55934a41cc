#include "cli/Commands.h"
#include "cli/Options.h"
#include "cli/StoreOpener.h"
#include "cli/VerdictText.h"
#include "model/VerdictCodec.h"
#include "store/TaskStore.h"
#include "store/VerdictStore.h"
#include "util/Json.h"

#include <limits>

namespace km::cli {

namespace {
Result<qint64> positiveId(const QString& text, const QString& what)
{
    bool ok = false;
    const qint64 id = text.toLongLong(&ok);
    if (!ok || id <= 0)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1 must be a positive number, not '%2'").arg(what, text));
    return id;
}

Result<QList<VerdictStatus>> statusesFrom(const QStringList& values)
{
    QList<VerdictStatus> out;
    for (const QString& v : values)
        for (const QString& part : v.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const auto s = verdictStatusFromString(part.trimmed().toUpper());
            if (!s) {
                QStringList names;
                for (VerdictStatus k : allVerdictStatuses())
                    names << toString(k);
                return makeError(
                    ErrorCode::InvalidInput,
                    QStringLiteral("unknown verdict status '%1' (%2)").arg(part, names.join(QStringLiteral(", "))));
            }
            out.append(*s);
        }
    return out;
}

QVariantMap summaryVariant(const VerdictSummary& s)
{
    return {{QStringLiteral("id"), s.id},
            {QStringLiteral("solution_id"), s.solutionId},
            {QStringLiteral("task_id"), s.taskId},
            {QStringLiteral("status"), toString(s.status)},
            {QStringLiteral("created_at"), isoUtc(s.createdAt)},
            {QStringLiteral("summary"), s.summary},
            {QStringLiteral("speedup"), s.speedup ? QVariant(*s.speedup) : QVariant()}};
}

}  // namespace

int verdictsListCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("task"), QStringLiteral("Verdicts of this task."), QStringLiteral("ID")});
    p.addOption({QStringLiteral("status"), QStringLiteral("Verdict status."), QStringLiteral("S")});
    p.addOption({QStringLiteral("solution"), QStringLiteral("Verdicts of this solution."), QStringLiteral("N")});
    p.addOption({QStringLiteral("limit"), QStringLiteral("At most N verdicts."), QStringLiteral("N")});
    p.addOption({QStringLiteral("json"), QStringLiteral("JSON output.")});
    if (const auto exit = parseOrExit(p, QStringLiteral("verdicts list"), args, io))
        return *exit;
    if (!p.positionalArguments().isEmpty()) {
        io.err << "kmosaic verdicts list: unexpected argument '" << p.positionalArguments().first() << "'\n";
        return Usage;
    }
    VerdictFilter f;
    f.taskId = p.value(QStringLiteral("task"));
    auto statuses = statusesFrom(p.values(QStringLiteral("status")));
    if (!statuses) {
        io.err << "kmosaic verdicts list: " << statuses.error().message << "\n";
        return Usage;
    }
    f.statuses = statuses.value();
    for (const char* name : {"solution", "limit"}) {
        if (!p.isSet(QLatin1String(name)))
            continue;
        auto n = positiveId(p.value(QLatin1String(name)), QStringLiteral("--%1").arg(QLatin1String(name)));
        if (!n) {
            io.err << "kmosaic verdicts list: " << n.error().message << "\n";
            return Usage;
        }
        if (qstrcmp(name, "solution") == 0)
            f.solutionId = n.value();
        else
            f.limit = int(std::min<qint64>(n.value(), std::numeric_limits<int>::max()));
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    VerdictStore verdicts(store.database());
    auto rows = verdicts.verdicts(f);
    if (!rows) {
        io.err << "kmosaic verdicts list: " << rows.error().message << "\n";
        return Failed;
    }
    if (p.isSet(QStringLiteral("json"))) {
        QVariantList list;
        for (const VerdictSummary& s : rows.value())
            list.append(summaryVariant(s));
        io.out << QString::fromUtf8(json::write(list)) << "\n";
        return Ok;
    }
    QList<QStringList> table;
    for (const VerdictSummary& s : rows.value())
        table.append({QString::number(s.id), s.taskId, toString(s.status), speedupText(s.speedup),
                      s.createdAt.toString(Qt::ISODate), s.summary});
    io.out << formatTable({QStringLiteral("ID"), QStringLiteral("TASK"), QStringLiteral("STATUS"),
                           QStringLiteral("SPEEDUP"), QStringLiteral("CREATED"), QStringLiteral("SUMMARY")},
                          table);
    io.out << rows.value().size() << " verdict(s)\n";
    return Ok;
}

int verdictsShowCommand(StoreOpener& opener, const QStringList& args, Io io)
{
    QCommandLineParser p;
    p.addOption({QStringLiteral("json"), QStringLiteral("JSON output (the verdict object).")});
    if (const auto exit = parseOrExit(p, QStringLiteral("verdicts show"), args, io))
        return *exit;
    if (p.positionalArguments().size() != 1) {
        io.err << "kmosaic verdicts show: give exactly one verdict id\n";
        return Usage;
    }
    auto id = positiveId(p.positionalArguments().first(), QStringLiteral("a verdict id"));
    if (!id) {
        io.err << "kmosaic verdicts show: " << id.error().message << "\n";
        return Usage;
    }
    TaskStore* opened = opener.open(io);
    if (!opened)
        return Failed;
    TaskStore& store = *opened;
    VerdictStore verdicts(store.database());
    auto v = verdicts.verdict(id.value());
    if (!v) {
        io.err << "kmosaic verdicts show: " << v.error().message << "\n";
        return Failed;
    }
    if (!v.value()) {
        io.err << "kmosaic verdicts show: no verdict with id " << id.value() << "\n";
        return Failed;
    }
    const Verdict& verdict = *v.value();
    if (p.isSet(QStringLiteral("json"))) {
        io.out << QString::fromUtf8(json::write(verdictToVariant(verdict))) << "\n";
        return Ok;
    }
    auto solution = verdicts.solution(verdict.solutionId);
    if (!solution) {
        io.err << "kmosaic verdicts show: " << solution.error().message << "\n";
        return Failed;
    }
    printVerdict(verdict, solution.value() ? solution.value()->taskId : QStringLiteral("?"), io.out);
    return Ok;
}

}  // namespace km::cli
