#include "agent/AgentRunner.h"

#include "agent/ReplySource.h"
#include "model/ScrubbedValues.h"
#include "store/Database.h"
#include "store/TrajectoryStore.h"
#include "util/Logging.h"

#include <QEventLoop>
#include <QMutexLocker>
#include <QTimer>
#include <chrono>

namespace km {

namespace {
constexpr int kReplyTextMs = 150;  // how often a streaming reply's text so far is shown

// The newest text of the reply streaming in, handed from the run's thread to the runner's: a stream has many deltas,
// and only the latest matters. The first delta after a hand-over asks for one; the hand-over, kReplyTextMs later,
// takes whatever is newest then, so the last text before a stall is shown too.
struct ArrivingText {
    QMutex mutex;
    int stepIdx = -1;  // -1: nothing to hand over (the step was recorded)
    QString text;
    bool asked = false;
};
}  // namespace

AgentRunner::AgentRunner(Verifier& verifier, QString dbPath, AgentSetup base, SourceFactory sources, QString actor,
                         QObject* parent)
    : QObject(parent)
    , m_verifier(verifier)
    , m_dbPath(std::move(dbPath))
    , m_base(std::move(base))
    , m_sources(std::move(sources))
    , m_actor(std::move(actor))
{
    connect(&m_verifier, &Verifier::verdictReady, this, [this](quint64 ticket, const Verdict& v) {
        if (auto p = m_waiting.take(ticket))
            p->set_value(v);
        else
            m_early.insert(ticket, v);
    });
    m_poll.setInterval(500);
    connect(&m_poll, &QTimer::timeout, this, &AgentRunner::pollCancels);
}

AgentRunner::~AgentRunner()
{
    m_shuttingDown = true;
    m_cancelAll = true;
    cancelAll();
    for (std::thread& t : m_threads)
        if (t.joinable())
            t.join();
}

void AgentRunner::start(const QList<AgentJob>& jobs, int concurrency)
{
    {
        QMutexLocker lock(&m_mutex);
        m_queue = jobs;
        m_outcomes.clear();
        m_running = std::max(1, std::min(concurrency, int(jobs.size())));
    }
    if (jobs.isEmpty()) {
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT finished({}); }, Qt::QueuedConnection);
        return;
    }
    m_poll.start();
    const int n = m_running;
    for (int i = 0; i < n; ++i)
        m_threads.emplace_back([this] { workerMain(); });
}

void AgentRunner::cancelAll()
{
    m_cancelAll = true;
    QMutexLocker lock(&m_mutex);
    m_queue.clear();
    for (const Active& a : std::as_const(m_active))
        a.cancel->store(true);
}

QList<AgentOutcome> AgentRunner::runAndWait(const QList<AgentJob>& jobs, int concurrency)
{
    QEventLoop loop;
    QList<AgentOutcome> out;
    const auto c = connect(this, &AgentRunner::finished, &loop, [&](const QList<AgentOutcome>& o) {
        out = o;
        loop.quit();
    });
    start(jobs, concurrency);
    loop.exec();
    disconnect(c);
    return out;
}

void AgentRunner::workerMain()
{
    for (;;) {
        AgentJob job;
        {
            QMutexLocker lock(&m_mutex);
            if (m_queue.isEmpty())
                break;
            job = m_queue.takeFirst();
        }
        AgentOutcome outcome = runOne(job);
        outcome.error = m_base.secrets.scrub(outcome.error);  // printed and signalled: no key in it
        if (outcome.run)
            outcome.run = scrubbed(*outcome.run, m_base.secrets);
        QMutexLocker lock(&m_mutex);
        m_outcomes.append(outcome);
        m_active.remove(outcome.runId);
        QMetaObject::invokeMethod(
            this, [this, outcome] { Q_EMIT runEnded(outcome); }, Qt::QueuedConnection);
    }
    QMutexLocker lock(&m_mutex);
    if (--m_running == 0) {
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_poll.stop();
                for (std::thread& t : m_threads)
                    t.join();
                m_threads.clear();
                QList<AgentOutcome> outcomes;
                {
                    QMutexLocker l(&m_mutex);
                    outcomes = m_outcomes;
                }
                Q_EMIT finished(outcomes);
            },
            Qt::QueuedConnection);
    }
}

// The run a resume continues (claimed for this process) or a fork comes from, with the budgets and verify options
// it recorded put into `setup` when the job keeps them; nullopt for a new run.
Result<std::optional<AgentRun>> AgentRunner::priorRun(TrajectoryStore& trajectories, const AgentJob& job,
                                                      AgentSetup& setup)
{
    if (!job.forkFromRunId && !job.resumeRunId)
        return std::optional<AgentRun>();
    std::optional<AgentRun> prior;
    if (job.forkFromRunId) {
        auto from = trajectories.run(job.forkFromRunId);
        if (!from)
            return from.error();
        if (!from.value())
            return makeError(ErrorCode::NotFound,
                             QStringLiteral("no agent run with id %1 to fork").arg(job.forkFromRunId));
        prior = *from.value();
    } else {
        auto claimed = trajectories.claimForResume(job.resumeRunId);
        if (!claimed)
            return claimed.error();
        prior = claimed.value();
    }
    if (job.resumeRunId || job.forkKeepsSettings) {
        setup.budgets = AgentBudgets::fromVariant(prior->budgets);
        setup.verify = verifyOptionsFromSettings(prior->settings, setup.verify);
    }
    return prior;
}

AgentOutcome AgentRunner::runOne(const AgentJob& job)
{
    AgentOutcome outcome;
    outcome.taskId = job.task.id;
    outcome.runId = job.resumeRunId;
    auto db = store::Database::open(m_dbPath);
    if (!db) {
        outcome.error = db.error().message;
        return outcome;
    }
    TrajectoryStore trajectories(*db.value(), m_base.secrets);
    AgentSetup setup = m_base;
    setup.task = job.task;
    auto prior = priorRun(trajectories, job, setup);
    if (!prior) {
        outcome.error = prior.error().message;
        return outcome;
    }
    const std::optional<AgentRun> resumed = prior.value();  // or the run a fork comes from
    auto source = m_sources(job, resumed ? &*resumed : nullptr);
    if (!source) {
        outcome.error = source.error().message;
        if (resumed && job.resumeRunId)
            (void)trajectories.finishRun(resumed->id, RunState::Failed, outcome.error, resumed->totals);
        return outcome;
    }
    AgentLoop loop(
        *db.value(), *source.value(), [this](const VerifyJob& j) { return verifyFromWorker(j); }, setup);
    AgentRun run;
    if (job.forkFromRunId) {
        auto forked = loop.fork(job.forkFromRunId, job.forkSteps, m_actor);
        if (!forked) {
            outcome.error = forked.error().message;
            return outcome;
        }
        run = forked.value();
    } else if (resumed) {
        run = *resumed;
    } else {
        auto created = loop.create(m_actor);
        if (!created) {
            outcome.error = created.error().message;
            return outcome;
        }
        run = created.value();
    }
    outcome.runId = run.id;
    auto cancel = std::make_shared<std::atomic<bool>>(m_cancelAll.load());
    {
        QMutexLocker lock(&m_mutex);
        m_active.insert(run.id, Active{cancel});
    }
    const QString taskId = job.task.id;
    const qint64 runId = run.id;
    QMetaObject::invokeMethod(
        this, [this, taskId, runId] { Q_EMIT runStarted(taskId, runId); }, Qt::QueuedConnection);
    auto arriving = std::make_shared<ArrivingText>();
    const auto onStep = [this, arriving](const AgentRun& r, const TrajectoryStep& s) {
        {
            QMutexLocker lock(&arriving->mutex);
            arriving->stepIdx = -1;  // its whole reply is in the step
        }
        QMetaObject::invokeMethod(
            this, [this, r, s] { Q_EMIT stepRecorded(r, s); }, Qt::QueuedConnection);
    };
    const auto handOver = [this, runId, arriving] {
        QMutexLocker lock(&arriving->mutex);
        arriving->asked = false;
        const int stepIdx = arriving->stepIdx;
        const QString text = arriving->text;
        lock.unlock();
        if (stepIdx >= 0)
            Q_EMIT replyGrew(runId, stepIdx, m_base.secrets.scrub(text));
    };
    const auto onReplyText = [this, arriving, handOver](int stepIdx, const QString& soFar) {
        QMutexLocker lock(&arriving->mutex);
        arriving->stepIdx = stepIdx;
        arriving->text = soFar;
        if (std::exchange(arriving->asked, true))
            return;
        QMetaObject::invokeMethod(
            this, [this, handOver] { QTimer::singleShot(kReplyTextMs, this, handOver); }, Qt::QueuedConnection);
    };
    auto ended = loop.drive(run, m_actor, cancel.get(), onStep, onReplyText);
    if (!ended) {
        outcome.error = ended.error().message;
        qCWarning(lcAgent).noquote() << "agent run" << run.id << ":" << m_base.secrets.scrub(outcome.error);
        (void)trajectories.finishRun(run.id, RunState::Failed, outcome.error, run.totals);
        auto again = trajectories.run(run.id);
        if (again && again.value())
            outcome.run = *again.value();
        return outcome;
    }
    outcome.run = ended.value();
    return outcome;
}

Verdict AgentRunner::verifyFromWorker(const VerifyJob& job)
{
    auto promise = std::make_shared<std::promise<Verdict>>();
    auto future = promise->get_future();
    QMetaObject::invokeMethod(
        this,
        [this, job, promise] {
            const quint64 ticket = m_verifier.verify(job);
            if (m_early.contains(ticket))
                promise->set_value(m_early.take(ticket));
            else
                m_waiting.insert(ticket, promise);
        },
        Qt::QueuedConnection);
    // The runner's thread may be tearing the runner down: then no verdict comes, and the step must not wait forever.
    while (future.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
        if (m_shuttingDown) {
            Verdict abandoned;
            abandoned.status = VerdictStatus::SystemError;
            abandoned.summary = QStringLiteral("verification abandoned: the agent runner was shut down");
            return abandoned;
        }
    }
    return future.get();
}

void AgentRunner::pollCancels()
{
    QList<QPair<qint64, std::shared_ptr<std::atomic<bool>>>> active;
    {
        QMutexLocker lock(&m_mutex);
        for (auto it = m_active.cbegin(); it != m_active.cend(); ++it)
            active.append({it.key(), it.value().cancel});
    }
    if (active.isEmpty())
        return;
    if (!m_pollDb) {
        auto db = store::Database::open(m_dbPath);
        if (!db)
            return;
        m_pollDb = std::move(db).value();
    }
    TrajectoryStore trajectories(*m_pollDb);
    for (const auto& [id, flag] : active) {
        auto requested = trajectories.cancelRequested(id);
        if (requested && requested.value())
            flag->store(true);
    }
}

}  // namespace km
