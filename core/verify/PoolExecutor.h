#pragma once
// An executor that hands requests to a running verification pool (`kmosaic pool serve`) over its local socket, so a
// command pays neither `import torch` nor a worker start. Lives on the thread that created it.

#include "util/Result.h"
#include "verify/Executor.h"

#include <QHash>
#include <QLocalSocket>

namespace km {

class PoolExecutor : public Executor {
    Q_OBJECT
public:
    explicit PoolExecutor(QObject* parent = nullptr);
    ~PoolExecutor() override;  // closes the socket before the members its signals would touch are gone

    // Connects and greets the pool; an error says how to start one.
    Status connectTo(const QString& path, int timeoutMs = 10000);
    QVariantMap hello() const { return m_hello; }

    QString name() const override { return QStringLiteral("local (pool)"); }
    QString workerIsolation() const override { return m_hello.value(QStringLiteral("isolation")).toString(); }
    int parallelism() const override { return std::max(1, m_hello.value(QStringLiteral("parallelism"), 1).toInt()); }
    quint64 submit(const QVariantMap& request) override;
    void cancel(quint64 ticket) override;
    // Asks the pool to exit once it has answered.
    Status requestShutdown(int timeoutMs = 10000);

private:
    void onReadyRead();
    void onDisconnected();

    QLocalSocket m_socket;
    QByteArray m_buffer;
    QVariantMap m_hello;
    QHash<quint64, bool> m_open;
    quint64 m_next = 1;
};

}  // namespace km
