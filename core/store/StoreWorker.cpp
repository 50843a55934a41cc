#include "store/StoreWorker.h"

#include "store/Database.h"
#include "util/Logging.h"

#include <QMutexLocker>
#include <QPointer>
#include <QThread>
#include <QTimer>
#include <future>

namespace km {

// The worker thread: opens the store, answers the jobs posted to its agent, polls data_version, and closes the
// store on this thread when its event loop ends.
class StoreWorker::Thread : public QThread {
public:
    Thread(StoreWorker& owner, int pollMs) : m_owner(owner), m_pollMs(pollMs) {}
    std::future<Status> opened() { return m_opened.get_future(); }

protected:
    void run() override
    {
        auto store = TaskStore::open(m_owner.m_path);
        if (!store) {
            m_opened.set_value(store.error());
            return;
        }
        QObject agent;
        QTimer poll;
        std::optional<qint64> version = dataVersion(*store.value());
        if (m_pollMs > 0) {
            // data_version moves when another connection commits (this one's own writes leave it): cheap, it reads
            // the WAL index header, and it never waits on a writer's lock.
            QObject::connect(&poll, &QTimer::timeout, &agent, [this, &store, &version] {
                const std::optional<qint64> now = dataVersion(*store.value());
                if (!now || now == version)
                    return;
                version = now;
                QMetaObject::invokeMethod(&m_owner, &StoreWorker::storeChanged, Qt::QueuedConnection);
            });
            poll.start(m_pollMs);
        }
        m_owner.m_store = store.value().get();
        m_owner.m_agent = &agent;
        m_opened.set_value(Status{});
        exec();
        poll.stop();
        m_owner.m_store = nullptr;
        // store goes out of scope here: the connection is closed on the thread that opened it.
    }

private:
    static std::optional<qint64> dataVersion(TaskStore& store)
    {
        auto q = store.database().exec(QStringLiteral("PRAGMA data_version"));
        if (!q || !q.value().next())
            return std::nullopt;  // logged where it failed
        return q.value().value(0).toLongLong();
    }

    StoreWorker& m_owner;
    int m_pollMs;
    std::promise<Status> m_opened;
};

StoreWorker::StoreWorker(QString path) : m_path(std::move(path)) {}

Result<std::unique_ptr<StoreWorker>> StoreWorker::open(const QString& path, int pollMs)
{
    std::unique_ptr<StoreWorker> self(new StoreWorker(path));
    self->m_thread = new Thread(*self, pollMs);
    self->m_thread->setObjectName(QStringLiteral("kmosaic-store"));
    auto opened = self->m_thread->opened();
    self->m_thread->start();
    if (Status s = opened.get(); !s) {
        self->m_thread->wait();
        return s.error();
    }
    return self;
}

StoreWorker::~StoreWorker()
{
    if (!m_thread)
        return;
    m_thread->quit();  // after the job running now, if any; the queued ones are dropped with the agent
    m_thread->wait();
    delete m_thread;
}

quint64 StoreWorker::nextTicket(const QString& channel)
{
    const QMutexLocker lock(&m_ticketsLock);
    const quint64 ticket = ++m_nextTicket;
    if (!channel.isEmpty())
        m_latest.insert(channel, ticket);
    return ticket;
}

bool StoreWorker::isCurrent(const QString& channel, quint64 ticket) const
{
    if (channel.isEmpty())
        return true;
    const QMutexLocker lock(&m_ticketsLock);
    return m_latest.value(channel) == ticket;
}

void StoreWorker::post(const QString& channel, quint64 ticket, QObject* context, Job job)
{
    ++m_pending;
    QPointer<QObject> receiver(context);  // read on this (the owner's) thread only
    QMetaObject::invokeMethod(
        m_agent,
        [this, channel, ticket, receiver, job = std::move(job)] {
            // On the worker thread. A read queued behind a newer one of its channel would only be dropped: skip it.
            std::function<void()> answer;
            if (isCurrent(channel, ticket))
                answer = job(*m_store);
            QMetaObject::invokeMethod(
                this,
                [this, channel, ticket, receiver, answer = std::move(answer)] {
                    if (answer && receiver && isCurrent(channel, ticket))
                        answer();
                    settle();
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void StoreWorker::settle()
{
    if (--m_pending == 0)
        Q_EMIT idle();
}

}  // namespace km
