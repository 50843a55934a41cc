// The replay benchmark's store (ReplayStoreGenerator.h).
#include "ReplayStoreGenerator.h"

#include "agent/TrajectoryBundle.h"
#include "curate/BundledTasks.h"
#include "store/AuditLog.h"
#include "store/Database.h"
#include "store/TaskStore.h"
#include "store/TrajectoryStore.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator64>
#include <QSqlError>
#include <QSqlQuery>
#include <cmath>

namespace km::bench {

namespace {
// Realistic kernel lines: Python around a CUDA source string, as the agent's solutions are.
const char* const kLines[] = {
    "import torch",
    "from torch.utils.cpp_extension import load_inline",
    "cuda_source = r\"\"\"",
    "#include <cuda_runtime.h>",
    "__global__ void kernel(const float* __restrict__ x, float* __restrict__ y, int n) {",
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;",
    "    if (i < n) {",
    "        float v = x[i];",
    "        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));",
    "    }",
    "}",
    "    __shared__ float tile[32][33];",
    "    float4 a = reinterpret_cast<const float4*>(x)[i];",
    "    #pragma unroll",
    "    for (int k = 0; k < 4; ++k) acc += a.x * b.y;",
    "    acc = __shfl_down_sync(0xffffffff, acc, offset);",
    "    __syncthreads();",
    "torch::Tensor forward(torch::Tensor x) {",
    "    auto y = torch::empty_like(x);",
    "    const int threads = 256;",
    "    const int blocks = (x.numel() + threads - 1) / threads;",
    "    kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());",
    "    return y;",
    "\"\"\"",
    "class ModelNew(torch.nn.Module):",
    "    def __init__(self):",
    "        super().__init__()",
    "    def forward(self, x):",
    "        return self.ext.forward(x.contiguous())",
    "        # keep the reference's dtype and shape",
};
constexpr int kLineCount = int(sizeof(kLines) / sizeof(kLines[0]));
const char* const kStages[] = {"implement", "repair", "optimise"};

struct TemplateVerdict {
    QString status, summary, harness, executor, isolation, environment, evidence;
    QVariant runtime, refRuntime, speedup;
};

int lineCount(QRandomGenerator64& rng)
{
    // log-uniform over [50, 2000]: most solutions short, a few long
    const double u = rng.generateDouble();
    return int(std::lround(50.0 * std::pow(40.0, u)));
}

QString codeOf(int lines, QRandomGenerator64& rng, qint64 serial)
{
    QString code;
    code.reserve(lines * 48);
    code += QStringLiteral("# solution %1\n").arg(serial);
    for (int i = 1; i < lines; ++i) {
        code += QLatin1String(kLines[rng.bounded(kLineCount)]);
        if (rng.bounded(8) == 0)
            code += QStringLiteral("  // %1").arg(rng.bounded(100000));
        code += QLatin1Char('\n');
    }
    return code;
}

Error sqlError(const QSqlQuery& q, const QString& what)
{
    return makeError(ErrorCode::Internal, what + QStringLiteral(": ") + q.lastError().text());
}
}  // namespace

QString generatedCode(int lines, quint64 seed)
{
    QRandomGenerator64 rng(seed);
    return codeOf(lines, rng, qint64(seed));
}

Result<ReplayStoreFacts> generateReplayStore(const QString& path, const QString& tasksDir, const QString& bundle,
                                             int runs, quint64 seed)
{
    QElapsedTimer timer;
    timer.start();
    ReplayStoreFacts facts;
    auto opened = TaskStore::open(path);
    if (!opened)
        return opened.error();
    TaskStore& store = *opened.value();
    if (auto seeded = seedIfEmpty(store, tasksDir, QStringLiteral("bench")); !seeded)
        return seeded.error();
    QFile f(bundle);
    if (!f.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::NotFound, QStringLiteral("cannot read %1").arg(bundle));
    auto b = readTrajectoryBundle(f.readAll());
    if (!b)
        return b.error();
    TrajectoryStore ts(store.database());
    for (const BundledRun& r : b.value().runs)
        if (auto imported = ts.importRun(r, bundleProvenance(b.value().label, r.origin, b.value().exportedAt, {}),
                                         QStringLiteral("bench"));
            !imported)
            return imported.error();

    store::Database& db = store.database();
    QList<TemplateVerdict> verdicts;
    {
        auto q = db.exec(QStringLiteral("SELECT status, summary, harness_version, executor, isolation, environment, "
                                        "evidence, runtime_ms, ref_runtime_ms, speedup FROM verdicts ORDER BY id"));
        if (!q)
            return q.error();
        while (q.value().next()) {
            const QSqlQuery& r = q.value();
            verdicts.append({r.value(0).toString(), r.value(1).toString(), r.value(2).toString(), r.value(3).toString(),
                             r.value(4).toString(), r.value(5).toString(), r.value(6).toString(), r.value(7),
                             r.value(8), r.value(9)});
        }
    }
    QStringList tasks;
    {
        auto q = db.exec(QStringLiteral("SELECT id FROM tasks ORDER BY id"));
        if (!q)
            return q.error();
        while (q.value().next())
            tasks << q.value().value(0).toString();
    }
    if (verdicts.isEmpty() || tasks.isEmpty())
        return makeError(ErrorCode::Internal, QStringLiteral("no template verdicts or tasks"));

    // No journal while generating: the file is new, and a WAL as large as the store would double the writes.
    if (Status st =
            db.execAll({QStringLiteral("PRAGMA journal_mode = OFF"), QStringLiteral("PRAGMA synchronous = OFF")});
        !st)
        return st.error();
    if (Status st = db.begin(); !st)
        return st.error();
    QSqlDatabase c = db.connection();
    QSqlQuery run(c), sol(c), ver(c), step(c), link(c), best(c);
    run.prepare(QStringLiteral(
        "INSERT INTO runs(task_id, kind, model, prompt_version, settings, state, started_at, "
        "ended_at, owner, budgets, totals, stage, error) VALUES (?,?,?,?,?,?,?,?,'','{}',?,?,COALESCE(?, ''))"));
    sol.prepare(QStringLiteral("INSERT INTO solutions(task_id, code, code_hash, origin, created_at) "
                               "VALUES (?,?,?,'agent',?)"));
    ver.prepare(QStringLiteral("INSERT INTO verdicts(solution_id, status, created_at, harness_version, executor, "
                               "isolation, environment, evidence, runtime_ms, ref_runtime_ms, speedup, summary) "
                               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"));
    step.prepare(QStringLiteral(
        "INSERT INTO trajectory_steps(run_id, idx, stage, messages, code, diff, error, tokens_in, tokens_out, "
        "latency_ms, created_at, verdict_id, template, prompt, reply, guidance, usage, verify_ms, solution_id, "
        "status, speedup, summary) VALUES (?,?,?,?,?,?,'',?,?,?,?,?,?,?,?,'[\"memory-coalescing\"]',"
        "'{\"attempts\":1,\"finish_reason\":\"stop\"}',?,?,?,?,?)"));
    link.prepare(QStringLiteral("UPDATE solutions SET step_id = ? WHERE id = ?"));
    best.prepare(QStringLiteral("UPDATE runs SET best_step_id = ? WHERE id = ?"));

    QRandomGenerator64 rng(seed);
    const QDateTime t0 = QDateTime::fromString(QStringLiteral("2026-01-01T00:00:00Z"), Qt::ISODate);
    const QString prompt =
        QStringLiteral("Write a CUDA kernel for the task below.\n\n") + QString(1500, QLatin1Char('x'));
    const QStringList models = {QStringLiteral("gpt-5"), QStringLiteral("claude-opus"), QStringLiteral("qwen3-coder")};
    const QStringList states = {QStringLiteral("completed"),   QStringLiteral("completed"),
                                QStringLiteral("completed"),   QStringLiteral("failed"),
                                QStringLiteral("interrupted"), QStringLiteral("cancelled")};
    qint64 serial = 0;
    for (int r = 0; r < runs; ++r) {
        const QString task = tasks[int(rng.bounded(qsizetype(tasks.size())))];
        const QDateTime started = t0.addSecs(qint64(r) * 600);
        const int nSteps = 1 + (r * 7) % 19;  // 1..19, ten on average
        const bool manual = r % 10 == 0;
        const QString model = manual ? QStringLiteral("manual") : models[r % models.size()];
        const QString settings =
            manual
                ? QStringLiteral("{\"source\":{\"kind\":\"manual\",\"dir\":\"/tmp/replies\"}}")
                : QStringLiteral("{\"source\":{\"kind\":\"llm\"},\"provenance\":{\"label\":\"batch %1\"}}").arg(r % 7);
        const QString& state = states[r % states.size()];
        run.addBindValue(task);
        run.addBindValue(manual ? QStringLiteral("manual") : QStringLiteral("llm"));
        run.addBindValue(model);
        run.addBindValue(QStringLiteral("implement@1 optimise@1 repair@1 system@1"));
        run.addBindValue(settings);
        run.addBindValue(state);
        run.addBindValue(started.toString(Qt::ISODateWithMs));
        run.addBindValue(started.addSecs(nSteps * 50).toString(Qt::ISODateWithMs));
        run.addBindValue(QStringLiteral("{\"turns\":%1}").arg(nSteps));
        run.addBindValue(QStringLiteral("optimise"));
        run.addBindValue(state == QLatin1String("failed") ? QStringLiteral("the provider answered 500 three times")
                                                          : QString());
        if (!run.exec())
            return sqlError(run, QStringLiteral("insert run"));
        const qint64 runId = run.lastInsertId().toLongLong();
        qint64 bestStep = 0;
        double bestSpeedup = -1;
        for (int i = 0; i < nSteps; ++i, ++serial) {
            const TemplateVerdict& v = verdicts[int(rng.bounded(qsizetype(verdicts.size())))];
            const QString code = codeOf(lineCount(rng), rng, serial);
            facts.codeBytes += code.size();
            const QString at = started.addSecs(i * 50).toString(Qt::ISODateWithMs);
            sol.addBindValue(task);
            sol.addBindValue(code);
            sol.addBindValue(QStringLiteral("bench-%1").arg(serial));
            sol.addBindValue(at);
            if (!sol.exec())
                return sqlError(sol, QStringLiteral("insert solution"));
            const qint64 solutionId = sol.lastInsertId().toLongLong();
            const QVariant speedup =
                v.speedup.isNull() ? QVariant() : QVariant(v.speedup.toDouble() * (0.5 + rng.generateDouble()));
            for (const QVariant& value : {QVariant(solutionId), QVariant(v.status), QVariant(at), QVariant(v.harness),
                                          QVariant(v.executor), QVariant(v.isolation), QVariant(v.environment),
                                          QVariant(v.evidence), v.runtime, v.refRuntime, speedup, QVariant(v.summary)})
                ver.addBindValue(value);
            if (!ver.exec())
                return sqlError(ver, QStringLiteral("insert verdict"));
            const qint64 verdictId = ver.lastInsertId().toLongLong();
            const QString stage = QLatin1String(kStages[i == 0 ? 0 : (v.status == QLatin1String("PASSED") ? 2 : 1)]);
            const QString reply =
                QStringLiteral("Here is a faster kernel.\n\n```python\n") + code.left(1200) + QStringLiteral("\n```\n");
            const QString messages =
                QStringLiteral(
                    "[{\"role\":\"user\",\"content\":\"%1\"},{\"role\":\"assistant\",\"content\":\"see reply\"}]")
                    .arg(prompt.left(200));
            const QString diff =
                QStringLiteral("--- step %1\n+++ step %2\n@@ -1,3 +1,3 @@\n-old line\n+new line\n").arg(i - 1).arg(i);
            for (const QVariant& value :
                 {QVariant(runId), QVariant(i), QVariant(stage), QVariant(messages), QVariant(code), QVariant(diff),
                  QVariant(qint64(2000 + rng.bounded(3000))), QVariant(qint64(500 + rng.bounded(4000))),
                  QVariant(qint64(rng.bounded(60000))), QVariant(at), QVariant(verdictId), QVariant(stage),
                  QVariant(prompt), QVariant(reply), QVariant(qint64(rng.bounded(90000))), QVariant(solutionId),
                  QVariant(v.status), speedup, QVariant(v.summary)})
                step.addBindValue(value);
            if (!step.exec())
                return sqlError(step, QStringLiteral("insert step"));
            const qint64 stepId = step.lastInsertId().toLongLong();
            link.addBindValue(stepId);
            link.addBindValue(solutionId);
            if (!link.exec())
                return sqlError(link, QStringLiteral("link solution"));
            if (v.status == QLatin1String("PASSED") && speedup.toDouble() > bestSpeedup) {
                bestSpeedup = speedup.toDouble();
                bestStep = stepId;
            }
            ++facts.steps;
        }
        if (bestStep) {
            best.addBindValue(bestStep);
            best.addBindValue(runId);
            if (!best.exec())
                return sqlError(best, QStringLiteral("best step"));
        }
        ++facts.runs;
    }
    if (Status st = db.commit(); !st)
        return st.error();
    if (Status st = db.execAll({QStringLiteral("PRAGMA journal_mode = WAL"),
                                QStringLiteral("PRAGMA synchronous = NORMAL"), QStringLiteral("ANALYZE")});
        !st)
        return st.error();
    facts.generateMs = timer.elapsed();
    facts.fileBytes = QFileInfo(path).size();
    return facts;
}

}  // namespace km::bench
