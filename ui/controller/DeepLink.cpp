#include "controller/DeepLink.h"

#include <QStringList>

namespace km::ui {

DeepLink DeepLink::toTask(const QString& taskId)
{
    DeepLink l;
    l.taskId = taskId;
    return l;
}

DeepLink DeepLink::toRun(qint64 runId, std::optional<int> stepIdx)
{
    DeepLink l;
    l.kind = Kind::Run;
    l.id = runId;
    l.step = stepIdx;
    return l;
}

DeepLink DeepLink::toSolution(qint64 solutionId)
{
    DeepLink l;
    l.kind = Kind::Solution;
    l.id = solutionId;
    return l;
}

namespace {
std::optional<qint64> positive(const QString& text)
{
    bool ok = false;
    const qint64 n = text.toLongLong(&ok);
    return ok && n > 0 ? std::optional<qint64>(n) : std::nullopt;
}

Error invalid(const QString& text, const QString& why)
{
    return makeError(ErrorCode::InvalidInput, QStringLiteral("'%1': %2").arg(text, why));
}
}  // namespace

Result<DeepLink> parseDeepLink(const QString& given)
{
    const QString text = given.trimmed();
    const QStringList parts = text.split(QLatin1Char('/'));
    const QString& head = parts.first();
    if (head == QLatin1String("task")) {
        if (parts.size() != 2 || parts[1].isEmpty())
            return invalid(text, QStringLiteral("a task link is task/ID"));
        return DeepLink::toTask(parts[1]);
    }
    if (head == QLatin1String("solution")) {
        if (parts.size() != 2)
            return invalid(text, QStringLiteral("a solution link is solution/ID"));
        const auto id = positive(parts[1]);
        if (!id)
            return invalid(text, QStringLiteral("'%1' is not a solution id").arg(parts[1]));
        return DeepLink::toSolution(*id);
    }
    if (head == QLatin1String("run")) {
        if (parts.size() != 2 && !(parts.size() == 4 && parts[2] == QLatin1String("step")))
            return invalid(text, QStringLiteral("a run link is run/ID or run/ID/step/N"));
        const auto id = positive(parts[1]);
        if (!id)
            return invalid(text, QStringLiteral("'%1' is not a run id").arg(parts[1]));
        if (parts.size() == 2)
            return DeepLink::toRun(*id);
        const auto n = positive(parts[3]);
        if (!n || *n > 1000000)
            return invalid(text, QStringLiteral("'%1' is not a step number (they count from 1)").arg(parts[3]));
        return DeepLink::toRun(*id, int(*n - 1));
    }
    return invalid(text, QStringLiteral("links start with task/, run/ or solution/"));
}

QString toString(const DeepLink& link)
{
    switch (link.kind) {
    case DeepLink::Kind::Task: return QStringLiteral("task/%1").arg(link.taskId);
    case DeepLink::Kind::Solution: return QStringLiteral("solution/%1").arg(link.id);
    case DeepLink::Kind::Run: break;
    }
    return link.step ? QStringLiteral("run/%1/step/%2").arg(link.id).arg(*link.step + 1)
                     : QStringLiteral("run/%1").arg(link.id);
}

QString commandLine(const DeepLink& link)
{
    return QStringLiteral("kmosaic-workbench --open %1").arg(toString(link));
}

}  // namespace km::ui
