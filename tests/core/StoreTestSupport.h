#pragma once
// Shared by the store tests: helpers, fixtures and the task sets they use.
#include "model/TaskVariant.h"
#include "store/Database.h"
#include "store/Migrations.h"
#include "store/TaskStore.h"
#include "util/Json.h"

#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;

namespace km::storetest {

// Evaluates a Result or Status once and fails the test with its message when it is an error.
#define VERIFY_OK(expr)                                                                                                \
    do {                                                                                                               \
        const auto& r_ = (expr);                                                                                       \
        QVERIFY2(r_.ok(), r_.ok() ? "" : qPrintable(r_.error().message));                                              \
    } while (false)

inline QByteArray dump(const Task& t)
{
    return json::write(taskToVariant(t));
}

inline Result<QList<QVariantList>> rows(store::Database& db, const QString& sql)
{
    auto q = db.exec(sql);
    if (!q)
        return q.error();
    QSqlQuery query = std::move(q).value();
    QList<QVariantList> out;
    while (query.next()) {
        QVariantList row;
        for (int i = 0; i < query.record().count(); ++i)
            row.append(query.value(i));
        out.append(row);
    }
    return out;
}

inline qint64 scalar(store::Database& db, const QString& sql)
{
    auto r = rows(db, sql);
    return r && !r->isEmpty() ? r->first().value(0).toLongLong() : -1;
}

inline qint64 count(TaskStore& s, const char* table)
{
    return scalar(s.database(), QStringLiteral("SELECT COUNT(*) FROM %1").arg(QLatin1String(table)));
}

// The rows of every table a run, step, solution or verdict write touches: equal before and after means nothing
// was written.
inline QString counts(TaskStore& s)
{
    return QStringLiteral("runs %1 steps %2 solutions %3 verdicts %4 audit %5")
        .arg(count(s, "runs"))
        .arg(count(s, "trajectory_steps"))
        .arg(count(s, "solutions"))
        .arg(count(s, "verdicts"))
        .arg(count(s, "audit_log"));
}

inline QStringList ids(const QList<TaskSummary>& list)
{
    QStringList out;
    for (const TaskSummary& s : list)
        out.append(s.id);
    return out;
}

// One line per record, so a QCOMPARE shows every field that differs.
inline QString line(const ReviewRecord& r)
{
    return QStringList{QString::number(r.id), r.taskId,       r.reviewer, r.at.toString(Qt::ISODateWithMs),
                       toString(r.from),      toString(r.to), r.reason,   r.comment}
        .join(" | ");
}
inline QString line(const AuditEntry& e)
{
    return QStringList{e.actor, e.entity, e.entityId, e.action, e.reason, QString::fromUtf8(json::write(e.detail))}
        .join(" | ");
}

inline QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

inline Task makeTask(const QString& id, const QString& title, int level, const QStringList& categories,
                     PresentationSet shown, ReviewStatus status, const QString& description, const QString& reference,
                     const QString& spec = {})
{
    Task t;
    t.id = id;
    t.title = title;
    t.level = level;
    t.categories = categories;
    t.shown = shown;
    t.status = status;
    t.description = description;
    t.reference = reference;
    t.spec = spec;
    return t;
}

// Spells out list filters in test rows: only the fields a row sets.
struct FilterBuilder {
    TaskFilter f;
    FilterBuilder& statuses(const QList<ReviewStatus>& v) { return f.statuses = v, *this; }
    FilterBuilder& levels(const QList<int>& v) { return f.levels = v, *this; }
    FilterBuilder& categories(const QStringList& v) { return f.categories = v, *this; }
    FilterBuilder& presentations(const QList<Presentation>& v) { return f.presentations = v, *this; }
    FilterBuilder& text(const QString& v) { return f.text = v, *this; }
    FilterBuilder& ids(const QStringList& v) { return f.ids = v, *this; }
    FilterBuilder& limit(int v) { return f.limit = v, *this; }
};

using P = Presentation;
using S = ReviewStatus;

// The eight tasks the filter tests run against; statuses are initial statuses given at creation.
inline QList<Task> filterTasks()
{
    Task kb = makeTask("kb-gpt-block", "KernelBench level 4 GPT block", 4, {"model"}, {P::Reference}, S::Accepted, "",
                       "from transformers import GPT2Model\nmodel = GPT2Model(config)");
    kb.source = TaskSource{SourceKind::KernelBench, 4, 1, "gpt2", {}, 0};
    return {
        makeTask("relu", "ReLU activation", 1, {"activation", "elementwise"}, {P::Description}, S::Accepted,
                 "Apply the rectified linear unit elementwise.", "import torch\ny = torch.relu(x)"),
        makeTask("softmax-rows", "Row softmax", 1, {"softmax"}, {P::Reference}, S::Draft,
                 "Numerically stable softmax over rows.", "import torch\ny = torch.softmax(x, dim=-1)",
                 "$$\\sigma(x)_i$$"),
        makeTask("gemm-bias-relu", "GEMM with bias", 2, {"gemm", "fused"}, {P::Description, P::Reference}, S::InReview,
                 "Matrix product, bias, then clamp at zero.",
                 "import torch\ny = torch.relu(torch.nn.functional.linear(x, w, b))"),
        makeTask("layernorm", "Layer normalization", 1, {"normalization"}, {P::Spec}, S::Rejected,
                 "Normalize across the last dimension.", "y = torch.nn.functional.layer_norm(x, (D,))",
                 "Zero mean, unit variance."),
        makeTask("attention-causal", "Causal self attention", 3, {"attention", "model"},
                 {P::Description, P::Reference, P::Spec}, S::Accepted, "Masked attention of a decoder.",
                 "y = F.scaled_dot_product_attention(q, k, v, is_causal=True)", "softmax of scaled scores"),
        makeTask("conv2d-3x3", "Conv2d 3x3", 1, {"convolution"}, {P::Reference}, S::NeedsChanges, "",
                 "y = torch.nn.functional.conv2d(x, w, padding=1)"),
        makeTask("sum-reduce", "Sum reduction", 1, {"reduction"}, {P::Description, P::Spec}, S::Draft,
                 "Sum over dim 1 of a matrix.", "", "$$y_i = \\sum_j x_{ij}$$"),
        kb,
    };
}

// Fresh store files in one temporary folder, for test classes to inherit beside QObject.
class StoreFiles {
protected:
    QTemporaryDir m_dir;
    int m_files = 0;

    QString newPath() { return m_dir.filePath(QStringLiteral("store-%1.sqlite").arg(++m_files)); }
    static std::unique_ptr<TaskStore> openStore(const QString& path)
    {
        auto s = TaskStore::open(path);
        if (!s) {
            qWarning() << "open failed:" << s.error().message;
            return nullptr;
        }
        return std::move(s).value();
    }
};

}  // namespace km::storetest

using namespace km::storetest;

Q_DECLARE_METATYPE(km::TaskFilter)
Q_DECLARE_METATYPE(km::ErrorCode)
Q_DECLARE_METATYPE(km::Task)
