#pragma once
// The shipped H200 demonstrations (resources/trajectories/h200-manual-demonstrations.json) as the values the replay
// widgets are fed with (RunSummary, StepSummary, StepDetail), read with the bundle reader: no store. Runs get ids
// 1..6 in bundle order; step ids are run * 100 + idx + 1.
#include "agent/TrajectoryBundle.h"
#include "store/RunQuery.h"

#include <QFile>
#include <QtTest>

namespace km::test {

struct ReplayRun {
    RunSummary summary;
    QList<StepSummary> steps;
    QList<StepDetail> details;
};

inline StepSummary summaryOf(const StepDetail& d)
{
    const TrajectoryStep& t = d.step;
    StepSummary s;
    s.id = t.id;
    s.runId = t.runId;
    s.idx = t.idx;
    s.stage = t.stage;
    s.templateName = t.templateName;
    s.status = t.status;
    s.speedup = t.speedup;
    s.summary = t.summary;
    s.error = t.error;
    s.tokensIn = t.tokensIn;
    s.tokensOut = t.tokensOut;
    s.latencyMs = t.latencyMs;
    s.verifyMs = t.verifyMs;
    s.verdictId = d.verdict ? t.id : 0;
    s.codeLines = int(t.code.count(QLatin1Char('\n')));
    s.createdAt = t.createdAt;
    return s;
}

inline QList<ReplayRun> demonstrations()
{
    QFile f(QStringLiteral(KMOSAIC_SOURCE_DIR "/resources/trajectories/h200-manual-demonstrations.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the shipped demonstrations");
    const auto bundle = readTrajectoryBundle(f.readAll());
    if (!bundle)
        qFatal("the shipped demonstrations do not read: %s", qPrintable(bundle.error().message));
    QList<ReplayRun> out;
    qint64 runId = 0;
    for (const BundledRun& br : bundle.value().runs) {
        ReplayRun r;
        r.summary.id = ++runId;
        r.summary.taskId = br.run.taskId;
        r.summary.taskTitle = br.taskTitle;
        r.summary.kind = br.run.kind;
        r.summary.replySource = QStringLiteral("manual folder");
        r.summary.state = br.run.state;
        r.summary.steps = int(br.steps.size());
        r.summary.label = bundle.value().label;
        for (const BundledStep& bs : br.steps) {
            StepDetail d;
            d.step = bs.step;
            d.step.id = runId * 100 + bs.step.idx + 1;
            d.step.runId = runId;
            d.verdict = bs.verdict;
            d.previousCode = r.details.isEmpty() ? QString() : r.details.constLast().step.code;
            r.details << d;
            r.steps << summaryOf(d);
            if (d.step.status == QLatin1String("PASSED") && d.step.speedup &&
                (!r.summary.bestSpeedup || *d.step.speedup > *r.summary.bestSpeedup)) {
                r.summary.bestSpeedup = d.step.speedup;
                r.summary.bestStatus = d.step.status;
            }
        }
        out << r;
    }
    return out;
}

// The run of a task in the demonstrations.
inline ReplayRun demonstration(const QString& taskId)
{
    for (const ReplayRun& r : demonstrations())
        if (r.summary.taskId == taskId)
            return r;
    qFatal("no demonstration of %s", qPrintable(taskId));
    return {};
}

}  // namespace km::test
