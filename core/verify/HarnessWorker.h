#pragma once
// One harness worker process and the line-based JSON protocol to it (docs/verifier.md). Asynchronous: lives on
// the thread that created it and reports through signals; never blocks that thread.

#include "verify/HarnessLaunch.h"

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QVariantMap>

#include <memory>

namespace km {

class HarnessWorker : public QObject {
    Q_OBJECT
public:
    explicit HarnessWorker(HarnessLaunch launch, QObject* parent = nullptr);
    ~HarnessWorker() override;

    void start();  // sends hello; ready() follows
    bool isReady() const { return m_ready; }
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    // Writes one request; the id is assigned here and returned.
    qint64 send(QVariantMap request);
    void kill();
    const HarnessLaunch& launch() const { return m_launch; }
    QVariantMap helloReply() const { return m_hello; }
    QString stderrTail() const { return QString::fromUtf8(m_stderr); }

Q_SIGNALS:
    void ready(const QVariantMap& hello);
    void reply(qint64 id, const QVariantMap& reply);
    void workerEvent(qint64 id, const QVariantMap& event);  // not event(): that hides QObject::event(QEvent*)
    void died(const QString& why);

private:
    void readLines();
    void onFinished(int code, QProcess::ExitStatus status);

    HarnessLaunch m_launch;
    QProcess m_process;
    // The worker's scratch root when its launch names none: removed here, also when the worker was killed and could
    // not remove it itself.
    std::unique_ptr<QTemporaryDir> m_scratch;
    QByteArray m_buffer;
    QByteArray m_stderr;
    QVariantMap m_hello;
    qint64 m_nextId = 1;
    qint64 m_helloId = 0;
    bool m_ready = false;
    bool m_dead = false;
};

}  // namespace km
