#pragma once
// The store for a thread that must never wait on SQL (the workbench's GUI thread): one TaskStore connection opened,
// used and closed on a thread of its own. Created, called and answered on one thread (the owner, e.g. the GUI's).

#include "store/TaskStore.h"
#include "util/Result.h"

#include <QHash>
#include <QMutex>
#include <QObject>
#include <functional>
#include <memory>

namespace km {

// API (all from the owner thread):
// - submit(channel, work, context, done): runs work(TaskStore&) on the worker thread, in submission order, and calls
//   done(result) later on the owner thread (queued: never inside submit), unless context is gone by then.
// - channel names a kind of read ("summaries", "task"): each submit takes a ticket, and only the latest ticket of a
//   channel is answered. A request still queued behind a newer one of its channel is not run (latest wins); an
//   answer that arrives after a newer request of its channel is dropped. isCurrent(channel, ticket) says which.
// - write(work, context, done): a submit with no channel: always run, in order, always answered.
// - storeChanged(): another connection (this or another process) committed; polled through PRAGMA data_version.
class StoreWorker : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultPollMs = 400;

    // Starts the thread and opens path there; waits only for the open (at start-up, before a window shows).
    // pollMs: how often the change signal looks at PRAGMA data_version (0: never).
    static Result<std::unique_ptr<StoreWorker>> open(const QString& path, int pollMs = kDefaultPollMs);
    // Stops the thread; the connection is closed on it. Requests still queued are dropped unanswered.
    ~StoreWorker() override;
    StoreWorker(const StoreWorker&) = delete;
    StoreWorker& operator=(const StoreWorker&) = delete;

    const QString& path() const { return m_path; }

    template <typename T>
    quint64 submit(const QString& channel, std::function<Result<T>(TaskStore&)> work, QObject* context,
                   std::function<void(Result<T>)> done)
    {
        const quint64 ticket = nextTicket(channel);
        post(channel, ticket, context, [work = std::move(work), done = std::move(done)](TaskStore& store) {
            auto result = std::make_shared<Result<T>>(work(store));
            return std::function<void()>([done, result] { done(std::move(*result)); });
        });
        return ticket;
    }
    template <typename T>
    void write(std::function<Result<T>(TaskStore&)> work, QObject* context, std::function<void(Result<T>)> done)
    {
        submit<T>(QString(), std::move(work), context, std::move(done));
    }

    // Whether ticket is still the latest request of channel (its answer would be delivered).
    bool isCurrent(const QString& channel, quint64 ticket) const;
    // Requests submitted and not yet answered or dropped: 0 when the worker is idle.
    int pending() const { return m_pending; }

Q_SIGNALS:
    void storeChanged();
    void idle();  // pending() fell to 0

private:
    // Runs on the worker thread with the store, returns what to call on the owner thread.
    using Job = std::function<std::function<void()>(TaskStore&)>;
    class Thread;
    explicit StoreWorker(QString path);
    quint64 nextTicket(const QString& channel);
    void post(const QString& channel, quint64 ticket, QObject* context, Job job);
    void settle();

    QString m_path;
    Thread* m_thread = nullptr;
    QObject* m_agent = nullptr;    // lives on m_thread: the jobs are posted to it
    TaskStore* m_store = nullptr;  // used on m_thread only
    mutable QMutex m_ticketsLock;
    QHash<QString, quint64> m_latest;  // channel -> latest ticket; read by the worker thread to skip stale requests
    quint64 m_nextTicket = 0;
    int m_pending = 0;
};

}  // namespace km
