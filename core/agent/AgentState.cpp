#include "agent/AgentState.h"

namespace km {

QVariantMap AgentBudget::toVariant() const
{
    return {{QStringLiteral("turns"), turns}, {QStringLiteral("tokens"), tokens}, {QStringLiteral("minutes"), minutes}};
}

AgentBudget AgentBudget::fromVariant(const QVariantMap& m)
{
    AgentBudget b;
    b.turns = m.value(QStringLiteral("turns")).toInt();
    b.tokens = m.value(QStringLiteral("tokens")).toLongLong();
    b.minutes = m.value(QStringLiteral("minutes")).toDouble();
    return b;
}

QVariantMap AgentBudgets::toVariant() const
{
    return {{QStringLiteral("run"), run.toVariant()},          {toString(Stage::Implement), implement.toVariant()},
            {toString(Stage::Repair), repair.toVariant()},     {toString(Stage::Optimise), optimise.toVariant()},
            {QStringLiteral("target_speedup"), targetSpeedup}, {QStringLiteral("plateau"), plateau}};
}

AgentBudgets AgentBudgets::fromVariant(const QVariantMap& m)
{
    AgentBudgets b;
    b.run = AgentBudget::fromVariant(m.value(QStringLiteral("run")).toMap());
    b.implement = AgentBudget::fromVariant(m.value(toString(Stage::Implement)).toMap());
    b.repair = AgentBudget::fromVariant(m.value(toString(Stage::Repair)).toMap());
    b.optimise = AgentBudget::fromVariant(m.value(toString(Stage::Optimise)).toMap());
    b.targetSpeedup = m.value(QStringLiteral("target_speedup")).toDouble();
    b.plateau = m.value(QStringLiteral("plateau"), 3).toInt();
    return b;
}

bool advance(LoopState& s, const TrajectoryStep& step)
{
    for (const QVariant& v : step.messages) {
        const QVariantMap m = v.toMap();
        if (m.value(QStringLiteral("role")).toString() == QLatin1String("system") && s.conversation.isEmpty())
            s.conversation.append({QStringLiteral("system"), m.value(QStringLiteral("content")).toString()});
    }
    s.conversation.append({QStringLiteral("user"), step.prompt});
    s.conversation.append({QStringLiteral("assistant"),
                           step.reply.isEmpty() ? QStringLiteral("(no reply: %1)").arg(step.error) : step.reply});
    s.nextIdx = step.idx + 1;
    ++s.turns;
    s.tokensIn += step.tokensIn;
    s.tokensOut += step.tokensOut;
    const qint64 ms = step.latencyMs + step.verifyMs;
    s.elapsedMs += ms;
    AgentBudget& spent = s.spent[step.stage];
    ++spent.turns;
    spent.tokens += step.tokensIn + step.tokensOut;
    spent.minutes += ms / 60000.0;
    s.lastError = step.error;
    s.lastVerdictId = step.verdictId;
    if (!step.code.isEmpty())
        s.lastCode = step.code;
    bool best = false;
    s.verified = s.verified || !step.status.isEmpty();
    if (step.status == QLatin1String("PASSED")) {
        const double speedup = step.speedup.value_or(0);
        best = !s.passed || !s.bestSpeedup || speedup > *s.bestSpeedup;
        s.passed = true;
        if (best) {
            s.bestSpeedup = speedup;
            s.bestStepId = step.id;
        }
    }
    if (step.stage == Stage::Optimise)
        s.sinceImprovement = best ? 0 : s.sinceImprovement + 1;
    return best;
}

LoopState stateAfter(const QList<TrajectoryStep>& steps, const QString& system)
{
    LoopState s;
    if (!system.isEmpty())
        s.conversation.append({QStringLiteral("system"), system});
    for (const TrajectoryStep& step : steps)
        advance(s, step);
    return s;
}

Stage nextStage(const LoopState& s)
{
    if (!s.verified)
        return Stage::Implement;
    return s.passed ? Stage::Optimise : Stage::Repair;
}

namespace {
QString spentReason(const AgentBudget& limit, const AgentBudget& used, qint64 tokens, double minutes,
                    const QString& what)
{
    if (limit.turns > 0 && used.turns >= limit.turns)
        return QStringLiteral("%1 turn budget (%2) spent").arg(what).arg(limit.turns);
    if (limit.tokens > 0 && tokens >= limit.tokens)
        return QStringLiteral("%1 token budget (%2) spent").arg(what).arg(limit.tokens);
    if (limit.minutes > 0 && minutes >= limit.minutes)
        return QStringLiteral("%1 time budget (%2 min) spent").arg(what).arg(limit.minutes);
    return {};
}
}  // namespace

QString stopReason(const LoopState& s, const AgentBudgets& b)
{
    if (s.passed && b.targetSpeedup > 0 && s.bestSpeedup.value_or(0) >= b.targetSpeedup)
        return QStringLiteral("target speedup %1x reached").arg(b.targetSpeedup);
    if (s.passed && b.plateau > 0 && s.sinceImprovement >= b.plateau)
        return QStringLiteral("no improvement in %1 optimisation steps").arg(b.plateau);
    AgentBudget run;
    run.turns = s.turns;
    if (QString r = spentReason(b.run, run, s.tokensIn + s.tokensOut, s.elapsedMs / 60000.0, QStringLiteral("run"));
        !r.isEmpty())
        return r;
    const Stage stage = nextStage(s);
    const AgentBudget& limit = stage == Stage::Implement ? b.implement : stage == Stage::Repair ? b.repair : b.optimise;
    const AgentBudget used = s.spent.value(stage);
    return spentReason(limit, used, used.tokens, used.minutes, toString(stage));
}

QVariantMap totalsOf(const LoopState& s)
{
    QVariantMap m{{QStringLiteral("turns"), s.turns},          {QStringLiteral("tokens_in"), s.tokensIn},
                  {QStringLiteral("tokens_out"), s.tokensOut}, {QStringLiteral("elapsed_ms"), s.elapsedMs},
                  {QStringLiteral("passed"), s.passed},        {QStringLiteral("best_step_id"), s.bestStepId}};
    if (s.bestSpeedup)
        m.insert(QStringLiteral("best_speedup"), *s.bestSpeedup);
    return m;
}

}  // namespace km
