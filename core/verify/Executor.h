#pragma once
// Where verifications run. An executor takes harness requests (docs/verifier.md) and answers each with the
// harness's verdict object or an error; the local executor runs a worker here, a Slurm executor on a cluster.

#include <QObject>
#include <QVariantMap>

namespace km {

class Executor : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual QString name() const = 0;             // "local", "slurm": recorded with every verdict
    virtual QString workerIsolation() const = 0;  // what the executor puts around the worker (network namespace)
    // How many verifications run at once (one per GPU for the multi-GPU executor): how many a batch keeps queued.
    virtual int parallelism() const { return 1; }
    // Queues one verify request (without id); finished() comes later with the same ticket.
    virtual quint64 submit(const QVariantMap& request) = 0;
    // Drops a queued request, or stops the one in flight (the worker is restarted); finished() reports it.
    virtual void cancel(quint64 ticket) = 0;

Q_SIGNALS:
    void phase(quint64 ticket, const QString& phase);
    // verdict: the harness's verdict object; empty with `error` set when no verdict could be produced.
    void finished(quint64 ticket, const QVariantMap& verdict, const QString& error);
    // A harness worker has started and answered hello (imported torch): `ready` of this executor's `total` are.
    void workerReady(int ready, int total);
};

}  // namespace km
