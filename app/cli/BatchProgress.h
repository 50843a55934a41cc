#pragma once
// Progress of a batch of verifications for the terminal: counts by outcome, elapsed time, and an ETA from the mean
// time per verification so far. Pure: the caller feeds it verdicts and a clock.

#include <QMap>
#include <QString>

namespace km::cli {

class BatchProgress {
public:
    explicit BatchProgress(int total) : m_total(total) {}

    // One verdict finished `atS` seconds after the batch started; `measuringS` of it the GPU spent measuring;
    // `gpu`: which GPU measured it ("GPU 1 (NVIDIA H200)"), empty when the executor does not say.
    void finished(const QString& status, double atS, double measuringS = 0, const QString& gpu = {});

    int done() const { return m_done; }
    // "[12/48] 25% |#####               | 10 PASSED, 2 COMPILE_ERROR | 3m10s elapsed, ETA 9m30s"
    QString line() const;
    // Seconds still to go at the mean pace so far; negative before the first verdict.
    double etaS() const;
    // Share of the elapsed wall time during which the GPU measured (0..1).
    double measuringShare() const { return m_elapsedS > 0 ? m_measuringS / m_elapsedS : 0; }
    double elapsedS() const { return m_elapsedS; }
    // Per GPU named in finished(): "GPU 0 (NVIDIA H200): 24 verdicts, measuring during 61.2% of the wall time".
    QStringList gpuLines() const;
    int gpuCount() const { return int(m_gpus.size()); }

    static QString duration(double seconds);  // "45s", "3m10s", "1h02m"

private:
    int m_total;
    int m_done = 0;
    double m_elapsedS = 0;
    double m_measuringS = 0;
    QMap<QString, int> m_counts;
    struct GpuShare {
        int verdicts = 0;
        double measuringS = 0;
    };
    QMap<QString, GpuShare> m_gpus;
};

}  // namespace km::cli
