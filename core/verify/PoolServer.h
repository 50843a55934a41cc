#pragma once
// A verification pool: keeps one warm executor (its harness worker has paid for `import torch` once) and serves
// verify requests from any number of `kmosaic verify --pool` clients over a local socket, one at a time in arrival
// order. A client that disconnects has its requests cancelled. Lives on the thread that created it.

#include "util/Result.h"
#include "verify/Executor.h"

#include <QHash>
#include <QLocalServer>
#include <QPointer>

class QLocalSocket;

namespace km {

class PoolServer : public QObject {
    Q_OBJECT
public:
    explicit PoolServer(Executor& executor, QObject* parent = nullptr);
    ~PoolServer() override;

    // Listens on `path`; a stale socket file (no pool answering) is replaced, a live pool is an error.
    Status listen(const QString& path);
    int served() const { return m_served; }

Q_SIGNALS:
    void shutdownRequested();
    void idle();  // no client connected and nothing queued

private:
    struct Pending {
        QPointer<QLocalSocket> socket;
        QVariant id;
    };
    void onConnection();
    void onMessage(QLocalSocket* socket, const QVariantMap& m);
    void reply(QLocalSocket* socket, const QVariantMap& m);

    Executor& m_executor;
    QLocalServer m_server;
    QHash<quint64, Pending> m_pending;
    int m_served = 0;
    int m_clients = 0;
};

}  // namespace km
