#include "agent/AgentLoop.h"

#include "agent/AgentPrompt.h"
#include "agent/CodeExtraction.h"
#include "agent/Feedback.h"
#include "agent/ReplySource.h"
#include "agent/TextDiff.h"
#include "model/ScrubbedValues.h"
#include "store/Database.h"
#include "store/TrajectoryStore.h"
#include "store/VerdictStore.h"
#include "util/Logging.h"
#include "verify/HarnessLaunch.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>

namespace km {

QString agentHarnessVersion()
{
    return harnessVersion();
}

VerifyOptions verifyOptionsFromSettings(const QVariantMap& settings, VerifyOptions o)
{
    const QVariantMap v = settings.value(QStringLiteral("verify")).toMap();
    o.device = v.value(QStringLiteral("device"), o.device).toString();
    o.configs = v.value(QStringLiteral("configs"), o.configs).toStringList();
    o.seeds = v.value(QStringLiteral("seeds"), o.seeds).toInt();
    o.timingRuns = v.value(QStringLiteral("timing_runs"), o.timingRuns).toInt();
    o.timeoutS = v.value(QStringLiteral("timeout_s"), o.timeoutS).toDouble();
    o.buildCache = v.value(QStringLiteral("build_cache"), o.buildCache).toString();
    o.profile = v.value(QStringLiteral("profile"), o.profile).toBool();
    o.ncu = v.value(QStringLiteral("ncu"), o.ncu).toBool();
    return o;
}

AgentLoop::AgentLoop(store::Database& db, ReplySource& source, VerifyFn verify, AgentSetup setup)
    : m_db(db)
    , m_source(source)
    , m_verify(std::move(verify))
    , m_setup(std::move(setup))
{
}

QVariantMap AgentLoop::runSettings() const
{
    const VerifyOptions& o = m_setup.verify;
    return {{QStringLiteral("source"), m_source.settings()},
            {QStringLiteral("verify"), QVariantMap{{QStringLiteral("device"), o.device},
                                                   {QStringLiteral("configs"), o.configs},
                                                   {QStringLiteral("seeds"), o.seeds},
                                                   {QStringLiteral("timing_runs"), o.timingRuns},
                                                   {QStringLiteral("timeout_s"), o.timeoutS},
                                                   {QStringLiteral("build_cache"), o.buildCache},
                                                   {QStringLiteral("profile"), o.profile},
                                                   {QStringLiteral("ncu"), o.ncu}}},
            {QStringLiteral("prompt_hash"), QString::fromLatin1(m_setup.prompts.contentHash())},
            {QStringLiteral("guidance_version"), m_setup.guidance.version()},
            {QStringLiteral("harness_version"), agentHarnessVersion()},
            {QStringLiteral("presentations"), m_setup.task.shown.names()}};
}

Result<QString> AgentLoop::systemPrompt() const
{
    return m_setup.prompts.render(QStringLiteral("system"), promptValues(m_setup.task, PromptInputs{}));
}

AgentRun AgentLoop::newRun() const
{
    AgentRun run;
    run.taskId = m_setup.task.id;
    run.kind = m_source.kind();
    run.model = m_source.model();
    run.promptVersion = m_setup.prompts.versionString();
    run.settings = runSettings();
    run.budgets = m_setup.budgets.toVariant();
    return run;
}

Result<AgentRun> AgentLoop::create(const QString& actor)
{
    TrajectoryStore trajectories(m_db, m_setup.secrets);
    return trajectories.createRun(newRun(), actor);
}

Result<AgentRun> AgentLoop::fork(qint64 fromRunId, int steps, const QString& actor)
{
    TrajectoryStore trajectories(m_db, m_setup.secrets);
    auto old = trajectories.steps(fromRunId);
    if (!old)
        return old.error();
    const LoopState state = stateAfter(old.value().mid(0, std::max(0, steps)));
    AgentRun run = newRun();
    run.totals = totalsOf(state);
    run.stage = nextStage(state);
    return trajectories.forkRun(run, RunFork{fromRunId, steps, state.bestStepId}, actor);
}

Result<TrajectoryStep> AgentLoop::prompt(const LoopState& state, const std::optional<Verdict>& last) const
{
    TrajectoryStep step;
    step.idx = state.nextIdx;
    step.stage = nextStage(state);
    step.templateName = toString(step.stage);
    PromptInputs in;
    in.previousCode = state.lastCode;
    in.turn = state.turns + 1;
    in.maxTurns = m_setup.budgets.run.turns;
    in.withTask = step.idx == 0;
    GuidanceQuery query{m_setup.task.categories, toString(step.stage), {}, {}};
    if (!state.lastError.isEmpty()) {
        step.templateName = QStringLiteral("no_code");
        in.problem = state.lastError;
    } else if (last) {
        in.feedback = feedbackFor(*last, state.bestSpeedup);
        query.failureStatus = in.feedback->failureStatus;
        query.checks = in.feedback->checks;
    }
    const QList<GuidanceNote> notes = m_setup.guidance.select(query, m_setup.guidanceNotes);
    for (const GuidanceNote& n : notes)
        step.guidance.append(n.id);
    in.guidance = formatGuidance(notes);
    auto text = m_setup.prompts.render(step.templateName, promptValues(m_setup.task, in));
    if (!text)
        return makeError(text.error().code,
                         QStringLiteral("prompt '%1': %2").arg(step.templateName, text.error().message));
    step.prompt = text.value();
    return step;
}

void AgentLoop::takeReply(TrajectoryStep& step, const QString& reply, const LoopState& state) const
{
    step.reply = reply;
    auto code = extractSolution(reply);
    if (!code) {
        step.error = code.error().message;
        return;
    }
    step.code = code->code;
    step.usage.insert(QStringLiteral("extraction"), code->note);
    step.diff = unifiedDiff(state.lastCode, step.code, 3, QStringLiteral("previous"), QStringLiteral("this step"));
}

Result<AgentRun> AgentLoop::finish(AgentRun run, const LoopState& state, RunState runState, const QString& why)
{
    run.totals = totalsOf(state);
    run.totals.insert(QStringLiteral("stop_reason"), why);
    run.state = runState;
    const bool failed = runState == RunState::Failed;
    run.error = failed ? why : QString();
    if (failed)
        qCWarning(lcAgent).noquote() << "agent run" << run.id << "failed:" << m_setup.secrets.scrub(why);
    TrajectoryStore trajectories(m_db, m_setup.secrets);
    if (Status st = trajectories.finishRun(run.id, runState, run.error, run.totals); !st)
        return st.error();
    return scrubbed(run, m_setup.secrets);
}

Result<AgentRun> AgentLoop::drive(AgentRun run, const QString& actor, const std::atomic<bool>* cancel,
                                  const StepFn& onStep, const ReplyTextFn& onReplyText)
{
    TrajectoryStore trajectories(m_db, m_setup.secrets);
    auto stored = trajectories.steps(run.id);
    if (!stored)
        return stored.error();
    LoopState state = stateAfter(stored.value());
    if (state.conversation.isEmpty()) {
        auto system = systemPrompt();
        if (!system)
            return finish(run, state, RunState::Failed, QStringLiteral("prompt 'system': ") + system.error().message);
        state.conversation.append({QStringLiteral("system"), system.value()});
    }
    std::optional<Verdict> last;
    if (state.lastVerdictId) {
        VerdictStore verdicts(m_db, m_setup.secrets);
        auto v = verdicts.verdict(state.lastVerdictId);
        if (!v)
            return v.error();
        if (v.value())
            last = *v.value();
    }
    for (;;) {
        const auto flagged = trajectories.cancelRequested(run.id);
        if ((cancel && cancel->load()) || (flagged && flagged.value()))
            return finish(run, state, RunState::Cancelled, QStringLiteral("cancelled on request"));
        if (const QString why = stopReason(state, m_setup.budgets); !why.isEmpty())
            return finish(run, state, RunState::Completed, why);
        auto next = prompt(state, last);
        if (!next)
            return finish(run, state, RunState::Failed, next.error().message);
        TrajectoryStep step = next.value();
        QList<ChatMessage> conversation = state.conversation;
        conversation.append({QStringLiteral("user"), step.prompt});
        if (step.idx == 0)
            step.messages.append(QVariantMap{{QStringLiteral("role"), QStringLiteral("system")},
                                             {QStringLiteral("content"), state.conversation.value(0).content}});
        QElapsedTimer clock;
        clock.start();
        ReplySource::TextFn onText;
        if (onReplyText)
            onText = [&onReplyText, idx = step.idx](const QString& soFar) {
                onReplyText(idx, soFar);
            };
        auto reply = m_source.reply(conversation, step.idx, cancel, onText);
        if (!reply && reply.error().code == ErrorCode::Cancelled)
            return finish(run, state, RunState::Cancelled, QStringLiteral("cancelled on request"));
        if (!reply && reply.error().code != ErrorCode::Unsupported)
            return finish(run, state, RunState::Failed,
                          QStringLiteral("step %1: no reply: %2").arg(step.idx + 1).arg(reply.error().message));
        if (reply) {
            step.tokensIn = reply->tokensIn;
            step.tokensOut = reply->tokensOut;
            step.usage = reply->usage;
            step.latencyMs = reply->latencyMs ? reply->latencyMs : clock.elapsed();
            takeReply(step, reply->content, state);
        } else {
            step.latencyMs = clock.elapsed();
            step.error = QStringLiteral("the reply was refused: ") + reply.error().message;
        }
        step.messages.append(
            QVariantMap{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), step.prompt}});
        step.messages.append(QVariantMap{{QStringLiteral("role"), QStringLiteral("assistant")},
                                         {QStringLiteral("content"), step.reply}});
        std::optional<Verdict> verdict;
        if (step.error.isEmpty()) {
            VerifyJob job{m_setup.task, step.code, QStringLiteral("run-%1-step-%2.py").arg(run.id).arg(step.idx + 1),
                          m_setup.verify};
            QElapsedTimer vclock;
            vclock.start();
            verdict = m_verify(job);
            step.verifyMs = vclock.elapsed();
            step.status = toString(verdict->status);
            step.speedup = verdict->speedup;
        }
        LoopState after = state;
        const bool best = advance(after, step);
        run.stage = nextStage(after);
        run.totals = totalsOf(after);
        auto recorded = trajectories.recordStep(run, step, verdict, best, actor);
        if (!recorded)
            return finish(
                run, state, RunState::Failed,
                QStringLiteral("step %1 could not be stored: %2").arg(step.idx + 1).arg(recorded.error().message));
        if (best)
            after.bestStepId = recorded->id;
        state = after;
        last = verdict;
        if (onStep)
            onStep(run, recorded.value());
        if (verdict && verdict->status == VerdictStatus::SystemError)
            return finish(run, state, RunState::Failed,
                          QStringLiteral("the verifier failed on step %1: %2").arg(step.idx + 1).arg(verdict->summary));
    }
}

}  // namespace km
