// The SQLite task store on one thread: schema and migrations, refusal of files it must not touch, upsert and review
// semantics, the append-only audit log, list filters with full-text search, and atomic batches.
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

namespace {

// Evaluates a Result or Status once and fails the test with its message when it is an error.
#define VERIFY_OK(expr)                                                                                                \
    do {                                                                                                               \
        const auto& r_ = (expr);                                                                                       \
        QVERIFY2(r_.ok(), r_.ok() ? "" : qPrintable(r_.error().message));                                              \
    } while (false)

QByteArray dump(const Task& t)
{
    return json::write(taskToVariant(t));
}

Result<QList<QVariantList>> rows(store::Database& db, const QString& sql)
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

qint64 scalar(store::Database& db, const QString& sql)
{
    auto r = rows(db, sql);
    return r && !r->isEmpty() ? r->first().value(0).toLongLong() : -1;
}

QStringList ids(const QList<TaskSummary>& list)
{
    QStringList out;
    for (const TaskSummary& s : list)
        out.append(s.id);
    return out;
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

Task makeTask(const QString& id, const QString& title, int level, const QStringList& categories, PresentationSet shown,
              ReviewStatus status, const QString& description, const QString& reference, const QString& spec = {})
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
QList<Task> filterTasks()
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

}  // namespace

Q_DECLARE_METATYPE(km::TaskFilter)
Q_DECLARE_METATYPE(km::ErrorCode)
Q_DECLARE_METATYPE(km::Task)

class TestStore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;
    std::unique_ptr<TaskStore> m_filterStore;

    QString newPath() { return m_dir.filePath(QStringLiteral("store-%1.sqlite").arg(++m_files)); }

    std::unique_ptr<TaskStore> openStore(const QString& path)
    {
        auto s = TaskStore::open(path);
        if (!s) {
            qWarning() << "open failed:" << s.error().message;
            return nullptr;
        }
        return std::move(s).value();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_filterStore = openStore(newPath());
        QVERIFY(m_filterStore);
        VERIFY_OK(m_filterStore->upsertTasks(filterTasks(), "test", "fixture"));
    }

    void openCreatesFileWithCurrentSchema()
    {
        const QString path = m_dir.filePath("nested/folder/new.sqlite");
        QVERIFY(!QFile::exists(path));
        auto store = openStore(path);
        QVERIFY(store);
        QVERIFY(QFileInfo(path).isFile());
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        QCOMPARE(scalar(store->database(), "PRAGMA user_version"), qint64(store::latestSchemaVersion()));
        auto mode = rows(store->database(), "PRAGMA journal_mode");
        VERIFY_OK(mode);
        QCOMPARE(mode->first().value(0).toString(), QString("wal"));
        QCOMPARE(scalar(store->database(), "PRAGMA foreign_keys"), qint64(1));
        QCOMPARE(scalar(store->database(), "PRAGMA synchronous"), qint64(2));  // FULL
        // Foreign keys are enforced, not just reported as on.
        QVERIFY(!store->database().exec("INSERT INTO reviews(task_id, reviewer, at, from_status, to_status) "
                                        "VALUES ('missing', 'x', 'now', 'draft', 'accepted')"));
        QCOMPARE(store->count().value(), 0);
    }

    void migratesV1File()
    {
        // Build the file exactly as release 1 left it, from the SQL fixture.
        const QString path = newPath();
        {
            QFile sql(KMOSAIC_TEST_DATA "/store-v1.sql");
            QVERIFY(sql.open(QIODevice::ReadOnly | QIODevice::Text));
            const QStringList statements =
                QString::fromUtf8(sql.readAll())
                    .split(QRegularExpression("^-- ;;$", QRegularExpression::MultilineOption));
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "v1-fixture");
            db.setDatabaseName(path);
            QVERIFY(db.open());
            int executed = 0;
            for (const QString& chunk : statements) {
                QString code;
                for (const QString& line : chunk.split('\n'))
                    if (!line.startsWith("--"))
                        code += line + '\n';
                if (code.trimmed().isEmpty())
                    continue;
                QSqlQuery q(db);
                QVERIFY2(q.exec(code), qPrintable(q.lastError().text() + "\n" + code));
                ++executed;
            }
            QCOMPARE(executed, 29);
            db.close();
        }
        QSqlDatabase::removeDatabase("v1-fixture");

        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        QCOMPARE(store->count().value(), 3);

        Task relu = makeTask("old-relu", "Legacy ReLU activation", 1, {"activation", "elementwise"},
                             {P::Description, P::Reference}, S::Accepted,
                             "Apply the rectified linear unit to every element of a vector.",
                             "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                             "        return torch.relu(x)\n");
        relu.tags = {"legacy", "v1"};
        relu.forbiddenOps = {"torch.relu", "torch.clamp"};
        relu.tolerance = Tolerance{0.0001, 0.0002};
        relu.flopsFormula = "N";
        relu.bytesFormula = "8*N";
        relu.configs = {TaskConfig{"large", {{"N", qint64(1048576)}}},
                        TaskConfig{"small", {{"N", qint64(1024)}, {"alpha", 0.5}}}};
        Task softmax = makeTask("old-softmax", "Legacy row softmax", 2, {"softmax"}, {P::Description}, S::NeedsChanges,
                                "Numerically stable softmax over the rows of a matrix.",
                                "import torch\n\ndef forward(x):\n    return torch.softmax(x, dim=1)\n",
                                "$$y_i = e^{x_i} / \\sum_j e^{x_j}$$");
        softmax.dtype = "float16";
        softmax.source = TaskSource{SourceKind::KernelBench, 1, 23, "23_Softmax", {}, 0};
        Task layernorm =
            makeTask("old-layernorm", "Legacy layer normalization", 1, {"normalization"}, {P::Spec}, S::Draft, "",
                     "import torch.nn.functional as F\n\ndef forward(x):\n"
                     "    return F.layer_norm(x, (768,))\n",
                     "Normalize each row to zero mean and unit variance.");
        layernorm.tags = {"imported"};
        layernorm.source = TaskSource{SourceKind::File, 0, 0, {}, "/data/legacy.jsonl", 3};
        layernorm.configs = {TaskConfig{"base", {{"D", qint64(768)}, {"affine", true}, {"eps", 1e-05}}}};

        for (const Task& expected : {relu, softmax, layernorm}) {
            auto t = store->task(expected.id);
            VERIFY_OK(t);
            QVERIFY2(t.value().has_value(), qPrintable(expected.id));
            QCOMPARE(dump(*t.value()), dump(expected));
            const auto hash =
                rows(store->database(), "SELECT content_hash FROM tasks WHERE id = '" + expected.id + "'");
            QCOMPARE(hash->first().value(0).toByteArray(), expected.contentHash());
            // The hash v1 stored is the hash this release computes: an identical re-import changes nothing.
            QCOMPARE(store->upsertTask(expected, "test", "re-import").value(), UpsertOutcome::Unchanged);
        }

        auto history = store->reviews("old-softmax");
        VERIFY_OK(history);
        QCOMPARE(history->size(), 1);
        const ReviewRecord& r = history->first();
        QCOMPARE(r.reviewer, QString("dave"));
        QCOMPARE(toString(r.from), toString(S::Draft));
        QCOMPARE(toString(r.to), toString(S::NeedsChanges));
        QCOMPARE(r.reason, QString("unstable"));
        QCOMPARE(r.comment, QString("subtract the row maximum first"));
        QCOMPARE(r.at, QDateTime(QDate(2024, 5, 4), QTime(14, 0), Qt::UTC));
        auto audit = store->audit("task", "old-relu");
        VERIFY_OK(audit);
        QCOMPARE(audit->size(), 2);
        QCOMPARE(audit->at(1).action, QString("status"));
        QCOMPARE(audit->at(1).detail.value("to").toString(), QString("accepted"));

        // Full-text search covers rows written before the index existed: title, description, spec, reference.
        const QList<std::pair<QString, QStringList>> searches{
            {"legacy", {"old-layernorm", "old-relu", "old-softmax"}},
            {"row softmax", {"old-softmax"}},
            {"rectified", {"old-relu"}},
            {"variance", {"old-layernorm"}},
            {"layer_norm", {"old-layernorm"}},
            {"torch.softmax dim", {"old-softmax"}},
            {"torch.relu", {"old-relu"}},
        };
        for (const auto& [text, expected] : searches) {
            TaskFilter f;
            f.text = text;
            auto found = store->summaries(f);
            VERIFY_OK(found);
            QStringList got = ids(found.value());
            got.sort();
            QVERIFY2(got == expected, qPrintable(text + ": " + got.join(',')));
        }

        const QStringList tables{"runs", "solutions", "tasks_fts", "trajectory_steps", "verdicts"};
        for (const QString& table : tables)
            QVERIFY2(scalar(store->database(), "SELECT count(*) FROM sqlite_master WHERE name = '" + table + "'") == 1,
                     qPrintable(table));
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM pragma_table_info('reviews') "
                                           "WHERE name = 'solution_id'"),
                 qint64(1));
        QCOMPARE(rows(store->database(), "PRAGMA integrity_check")->first().value(0).toString(), QString("ok"));
        QVERIFY(rows(store->database(), "PRAGMA foreign_key_check")->isEmpty());

        // A migrated row's index entry follows later edits.
        softmax.description = "Stable softmax, subtracting the maximum of each row.";
        QCOMPARE(store->upsertTask(softmax, "test", "edit").value(), UpsertOutcome::Updated);
        TaskFilter f;
        f.text = "numerically";
        QVERIFY(store->summaries(f)->isEmpty());
        f.text = "subtracting";
        QCOMPARE(ids(store->summaries(f).value()), QStringList{"old-softmax"});
    }

    void migratesFromOlderVersion_data()
    {
        QTest::addColumn<int>("from");
        for (int v = 1; v < store::latestSchemaVersion(); ++v)
            QTest::addRow("v%d", v) << v;
    }
    void migratesFromOlderVersion()
    {
        QFETCH(int, from);
        const QString path = newPath();
        const QList<Task> written{
            makeTask("kept-a", "Tanh activation", 1, {"activation"}, {P::Description}, S::Draft,
                     "Hyperbolic tangent of each element.", "y = torch.tanh(x)"),
            makeTask("kept-b", "Max pooling", 2, {"pooling", "fused"}, {P::Reference, P::Spec}, S::InReview, "",
                     "y = torch.nn.functional.max_pool2d(x, 2)", "Window maximum."),
        };
        {
            auto db = store::Database::open(path, from);
            VERIFY_OK(db);
            QCOMPARE(db.value()->schemaVersion(), from);
            QCOMPARE(scalar(*db.value(), "SELECT count(*) FROM sqlite_master WHERE name = 'tasks_fts'"),
                     qint64(from >= 2 ? 1 : 0));
            TaskStore old(std::move(db).value());
            VERIFY_OK(old.upsertTasks(written, "old", "seed"));
            VERIFY_OK(old.review("kept-b", S::Accepted, "erin", "fine", ""));
        }
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), store::latestSchemaVersion());
        for (Task t : written) {
            if (t.id == "kept-b")
                t.status = S::Accepted;
            QCOMPARE(dump(store->task(t.id).value().value_or(Task{})), dump(t));
        }
        QCOMPARE(store->reviews("kept-b")->size(), 1);
        QCOMPARE(store->audit().value().size(), 3);
        for (const char* text : {"tanh", "hyperbolic", "max_pool2d", "window"}) {
            TaskFilter f;
            f.text = text;
            QCOMPARE(store->summaries(f).value().size(), 1);
        }
    }

    void refusesNewerSchema_data()
    {
        QTest::addColumn<bool>("walFile");
        QTest::newRow("store file (WAL)") << true;
        QTest::newRow("rollback-journal file") << false;
    }
    void refusesNewerSchema()
    {
        QFETCH(bool, walFile);
        const QString path = newPath();
        const int newer = store::latestSchemaVersion() + 1;
        if (walFile) {
            auto store = openStore(path);
            QVERIFY(store);
            VERIFY_OK(store->upsertTask(filterTasks().first(), "test", "seed"));
            VERIFY_OK(store->database().exec(QStringLiteral("PRAGMA user_version=%1").arg(newer)));
        } else {
            {
                QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "newer");
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                QVERIFY(q.exec("CREATE TABLE future(x TEXT)"));
                QVERIFY(q.exec("INSERT INTO future VALUES ('from a later release')"));
                QVERIFY(q.exec(QStringLiteral("PRAGMA user_version=%1").arg(newer)));
                db.close();
            }
            QSqlDatabase::removeDatabase("newer");
        }
        QVERIFY(!QFile::exists(path + "-wal"));
        const QByteArray before = fileBytes(path);
        QVERIFY(before.startsWith("SQLite format 3"));

        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Unsupported);
        QVERIFY2(store.error().message.contains(QString::number(newer)), qPrintable(store.error().message));
        QVERIFY(fileBytes(path) == before);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    void refusesNonDatabaseFile_data()
    {
        QTest::addColumn<QByteArray>("content");
        QByteArray random(8192, '\0');
        QRandomGenerator gen(42);
        for (char& c : random)
            c = char(gen.bounded(256));
        QTest::newRow("random bytes") << random;
        QTest::newRow("text") << QByteArray("id,title\nrelu,ReLU\n").repeated(50);
    }
    void refusesNonDatabaseFile()
    {
        QFETCH(QByteArray, content);
        const QString path = newPath();
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(content), content.size());
        }
        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Database);
        QVERIFY2(store.error().message.contains(path) && store.error().message.contains("not a"),
                 qPrintable(store.error().message));
        QVERIFY(fileBytes(path) == content);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    void refusesBadPaths_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<ErrorCode>("code");
        QTest::newRow("folder") << m_dir.path() << ErrorCode::InvalidInput;
        QTest::newRow("empty") << QString() << ErrorCode::InvalidInput;
        QTest::newRow("under a file") << m_dir.filePath("plain-file/store.sqlite") << ErrorCode::Io;
    }
    void refusesBadPaths()
    {
        QFETCH(QString, path);
        QFETCH(ErrorCode, code);
        QFile plain(m_dir.filePath("plain-file"));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        auto store = TaskStore::open(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, code);
        QVERIFY(!store.error().message.isEmpty());
        QCOMPARE(QFileInfo(m_dir.filePath("plain-file")).size(), qint64(0));
    }

    void upsertOutcomesAndAudit()
    {
        auto store = openStore(newPath());
        QVERIFY(store);
        const QList<Task> tasks = filterTasks().mid(0, 3);
        auto first = store->upsertTasks(tasks, "alice", "import");
        VERIFY_OK(first);
        QCOMPARE(first.value(),
                 (QList<UpsertOutcome>{UpsertOutcome::Created, UpsertOutcome::Created, UpsertOutcome::Created}));
        const QList<AuditEntry> created = store->audit().value();
        QCOMPARE(created.size(), 3);
        QCOMPARE(created[1].action, QString("created"));
        QCOMPARE(created[1].actor, QString("alice"));
        QCOMPARE(created[1].reason, QString("import"));
        QCOMPARE(created[1].entityId, tasks[1].id);
        const QDateTime updatedAt = store->summaries().value().first().updatedAt;

        auto again = store->upsertTasks(tasks, "alice", "import again");
        VERIFY_OK(again);
        QCOMPARE(again.value(),
                 (QList<UpsertOutcome>{UpsertOutcome::Unchanged, UpsertOutcome::Unchanged, UpsertOutcome::Unchanged}));
        QCOMPARE(store->audit().value().size(), 3);
        QCOMPARE(store->summaries().value().first().updatedAt, updatedAt);

        // An edit keeps the status a review set; the incoming status is only an initial status.
        VERIFY_OK(store->review("softmax-rows", S::Accepted, "bob", "verified", ""));
        Task edited = tasks[1];
        edited.title = "Row-wise softmax";
        edited.description = "Softmax over each row, stable.";
        edited.status = S::Rejected;
        QCOMPARE(store->upsertTask(edited, "carol", "edit").value(), UpsertOutcome::Updated);
        Task expected = edited;
        expected.status = S::Accepted;
        QCOMPARE(dump(store->task("softmax-rows").value().value()), dump(expected));
        const AuditEntry last = store->audit("task", "softmax-rows").value().last();
        QCOMPARE(last.action, QString("updated"));
        QCOMPARE(last.actor, QString("carol"));
        QCOMPARE(last.detail.value("fields").toStringList(), (QStringList{"description", "title"}));

        // A status alone is no content change.
        edited.status = S::Draft;
        QCOMPARE(store->upsertTask(edited, "carol", "status only").value(), UpsertOutcome::Unchanged);
        QCOMPARE(toString(store->task("softmax-rows").value()->status), toString(S::Accepted));
    }

    void configsKeepIntegerAndFloat()
    {
        auto store = openStore(newPath());
        QVERIFY(store);
        Task t = filterTasks().first();
        t.configs = {TaskConfig{"small",
                                {{"N", qint64(16)},
                                 {"scale", 16.0},
                                 {"fast", true},
                                 {"mode", "tile"},
                                 {"shape", QVariantList{qint64(2), 3.0}}}}};
        t.tolerance = Tolerance{1e-5, 0.25};
        t.forbiddenOps = {"torch.relu"};
        t.tags = {"a", "b"};
        t.source = TaskSource{SourceKind::File, 0, 0, {}, "/tmp/tasks.jsonl", 7};
        QCOMPARE(store->upsertTask(t, "test", "").value(), UpsertOutcome::Created);
        Task back = store->task(t.id).value().value();
        QCOMPARE(dump(back), dump(t));
        const QVariantMap values = back.configs.first().values;
        QCOMPARE(values.value("N").typeId(), int(QMetaType::LongLong));
        QCOMPARE(values.value("scale").typeId(), int(QMetaType::Double));
        QCOMPARE(values.value("fast").typeId(), int(QMetaType::Bool));
        QCOMPARE(values.value("shape").toList().at(0).typeId(), int(QMetaType::LongLong));
        QCOMPARE(values.value("shape").toList().at(1).typeId(), int(QMetaType::Double));

        // 16 -> 16.0 is a change of the task (the reference program sees a float), and the audit names it.
        t.configs.first().values.insert("N", 16.0);
        QCOMPARE(store->upsertTask(t, "test", "").value(), UpsertOutcome::Updated);
        QCOMPARE(store->task(t.id).value()->configs.first().values.value("N").typeId(), int(QMetaType::Double));
        QCOMPARE(store->audit("task", t.id).value().last().detail.value("fields").toStringList(),
                 QStringList{"configs"});
    }

    void reviewRecordsHistory()
    {
        auto store = openStore(newPath());
        QVERIFY(store);
        VERIFY_OK(store->upsertTasks(filterTasks(), "test", "seed"));
        const QDateTime start = QDateTime::currentDateTimeUtc().addSecs(-1);
        auto r1 = store->review("softmax-rows", S::InReview, "alice", "ready", "please check stability");
        VERIFY_OK(r1);
        auto r2 = store->review("softmax-rows", S::Accepted, "bob", "passes", "");
        VERIFY_OK(r2);
        QCOMPARE(toString(r1->from), toString(S::Draft));
        QCOMPARE(toString(r1->to), toString(S::InReview));
        QCOMPARE(toString(r2->from), toString(S::InReview));
        QCOMPARE(toString(r2->to), toString(S::Accepted));
        QVERIFY(r2->id > r1->id);
        QVERIFY(r1->at >= start && r2->at >= r1->at);
        QCOMPARE(toString(store->task("softmax-rows").value()->status), toString(S::Accepted));

        const QList<ReviewRecord> history = store->reviews("softmax-rows").value();
        QCOMPARE(history.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const ReviewRecord& want = i == 0 ? r1.value() : r2.value();
            QCOMPARE(history[i].id, want.id);
            QCOMPARE(history[i].taskId, QString("softmax-rows"));
            QCOMPARE(history[i].reviewer, want.reviewer);
            QCOMPARE(toString(history[i].from), toString(want.from));
            QCOMPARE(toString(history[i].to), toString(want.to));
            QCOMPARE(history[i].reason, want.reason);
            QCOMPARE(history[i].comment, want.comment);
            QCOMPARE(history[i].at, want.at);
        }
        const QList<AuditEntry> audit = store->audit("task", "softmax-rows").value();
        QCOMPARE(audit.size(), 3);
        QCOMPARE(audit[1].action, QString("status"));
        QCOMPARE(audit[1].actor, QString("alice"));
        QCOMPARE(audit[1].reason, QString("ready"));
        QCOMPARE(audit[1].detail.value("from").toString(), QString("draft"));
        QCOMPARE(audit[1].detail.value("to").toString(), QString("in_review"));
        QCOMPARE(audit[1].detail.value("comment").toString(), QString("please check stability"));
        QCOMPARE(audit[1].detail.value("review_id").toLongLong(), r1->id);
        QCOMPARE(audit[2].detail.value("to").toString(), QString("accepted"));
        TaskFilter f;
        f.ids = {"softmax-rows"};
        QCOMPARE(store->summaries(f).value().first().lastReviewer, QString("bob"));
    }

    void reviewRefusesWithoutWriting_data()
    {
        QTest::addColumn<QString>("taskId");
        QTest::addColumn<QString>("reviewer");
        QTest::addColumn<ErrorCode>("code");
        QTest::newRow("unknown task") << "no-such-task"
                                      << "alice" << ErrorCode::NotFound;
        QTest::newRow("empty reviewer") << "relu"
                                        << "" << ErrorCode::InvalidInput;
        QTest::newRow("blank reviewer") << "relu"
                                        << "  \t" << ErrorCode::InvalidInput;
    }
    void reviewRefusesWithoutWriting()
    {
        QFETCH(QString, taskId);
        QFETCH(QString, reviewer);
        QFETCH(ErrorCode, code);
        store::Database& db = m_filterStore->database();
        const qint64 reviews = scalar(db, "SELECT count(*) FROM reviews");
        const qint64 audit = scalar(db, "SELECT count(*) FROM audit_log");
        auto r = m_filterStore->review(taskId, S::Rejected, reviewer, "reason", "comment");
        QVERIFY(!r);
        QCOMPARE(r.error().code, code);
        QCOMPARE(scalar(db, "SELECT count(*) FROM reviews"), reviews);
        QCOMPARE(scalar(db, "SELECT count(*) FROM audit_log"), audit);
        QCOMPARE(toString(m_filterStore->task("relu").value()->status), toString(S::Accepted));
        VERIFY_OK(m_filterStore->count());  // no transaction left open
        VERIFY_OK(db.begin());
        db.rollback();
    }

    void auditLogIsAppendOnly_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::newRow("update") << "UPDATE audit_log SET actor = 'mallory'";
        QTest::newRow("update one") << "UPDATE audit_log SET detail = '{}' WHERE id = 1";
        QTest::newRow("delete") << "DELETE FROM audit_log";
        QTest::newRow("delete one") << "DELETE FROM audit_log WHERE id = 2";
        QTest::newRow("replace") << "INSERT OR REPLACE INTO audit_log(id, at, actor, entity, entity_id, action) "
                                    "VALUES (1, 'now', 'mallory', 'task', 'relu', 'created')";
    }
    void auditLogIsAppendOnly()
    {
        QFETCH(QString, sql);
        store::Database& db = m_filterStore->database();
        const auto before = rows(db, "SELECT * FROM audit_log ORDER BY id");
        VERIFY_OK(before);
        QVERIFY(before->size() >= 8);
        QVERIFY(!db.exec(sql));
        QCOMPARE(rows(db, "SELECT * FROM audit_log ORDER BY id").value(), before.value());
    }

    void filters_data()
    {
        QTest::addColumn<TaskFilter>("filter");
        QTest::addColumn<QStringList>("expected");
        auto row = [](const char* name, TaskFilter f, QStringList expected) { QTest::newRow(name) << f << expected; };
        const QStringList all{"attention-causal", "conv2d-3x3", "gemm-bias-relu", "kb-gpt-block",
                              "layernorm",        "relu",       "softmax-rows",   "sum-reduce"};
        row("none", {}, all);
        row("status", FilterBuilder().statuses({S::Accepted}).f, {"attention-causal", "kb-gpt-block", "relu"});
        row("statuses", FilterBuilder().statuses({S::Draft, S::NeedsChanges}).f,
            {"conv2d-3x3", "softmax-rows", "sum-reduce"});
        row("level 1", FilterBuilder().levels({1}).f,
            {"conv2d-3x3", "layernorm", "relu", "softmax-rows", "sum-reduce"});
        row("levels 2,3", FilterBuilder().levels({2, 3}).f, {"attention-causal", "gemm-bias-relu"});
        row("category any of", FilterBuilder().categories({"gemm", "attention"}).f,
            {"attention-causal", "gemm-bias-relu"});
        row("category model", FilterBuilder().categories({"model"}).f, {"attention-causal", "kb-gpt-block"});
        row("unknown category", FilterBuilder().categories({"scan"}).f, {});
        row("shown reference", FilterBuilder().presentations({P::Reference}).f,
            {"attention-causal", "conv2d-3x3", "gemm-bias-relu", "kb-gpt-block", "softmax-rows"});
        row("shown all of", FilterBuilder().presentations({P::Description, P::Reference}).f,
            {"attention-causal", "gemm-bias-relu"});
        row("shown spec", FilterBuilder().presentations({P::Spec}).f, {"attention-causal", "layernorm", "sum-reduce"});
        row("ids", FilterBuilder().ids({"softmax-rows", "relu", "missing"}).f, {"relu", "softmax-rows"});
        row("limit", FilterBuilder().limit(3).f, all.mid(0, 3));
        row("status and level", FilterBuilder().statuses({S::Accepted}).levels({1}).f, {"relu"});
        row("category and shown", FilterBuilder().categories({"model"}).presentations({P::Reference}).f,
            {"attention-causal", "kb-gpt-block"});
        row("status, level, limit", FilterBuilder().statuses({S::Draft, S::Accepted}).levels({1}).limit(2).f,
            {"relu", "softmax-rows"});
        // Full text: rows ranked by relevance, compared as sets.
        row("text title", FilterBuilder().text("softmax").f, {"attention-causal", "softmax-rows"});
        row("text prefix", FilterBuilder().text("normaliz").f, {"layernorm"});
        row("text case", FilterBuilder().text("RELU").f, {"gemm-bias-relu", "relu"});
        row("text words ANDed", FilterBuilder().text("relu rectified").f, {"relu"});
        row("text description", FilterBuilder().text("decoder").f, {"attention-causal"});
        row("text spec", FilterBuilder().text("variance").f, {"layernorm"});
        row("text reference call", FilterBuilder().text("torch.nn.functional.conv2d").f, {"conv2d-3x3"});
        row("text underscore word", FilterBuilder().text("scaled_dot_product_attention").f, {"attention-causal"});
        row("text underscore prefix", FilterBuilder().text("layer_n").f, {"layernorm"});
        row("text no match", FilterBuilder().text("winograd").f, {});
        row("text and status", FilterBuilder().statuses({S::Draft}).text("torch").f, {"softmax-rows"});
        row("text and level", FilterBuilder().levels({1}).text("torch").f,
            {"conv2d-3x3", "layernorm", "relu", "softmax-rows"});
        row("text and ids", FilterBuilder().text("relu").ids({"relu"}).f, {"relu"});
        row("text and limit", FilterBuilder().text("gpt2model").limit(1).f, {"kb-gpt-block"});
    }
    void filters()
    {
        QFETCH(TaskFilter, filter);
        QFETCH(QStringList, expected);
        auto found = m_filterStore->summaries(filter);
        VERIFY_OK(found);
        QStringList got = ids(found.value());
        if (!filter.text.isEmpty()) {
            got.sort();
            expected.sort();
        }
        QCOMPARE(got, expected);
        auto full = m_filterStore->tasks(filter);
        VERIFY_OK(full);
        QCOMPARE(full->size(), expected.size());
    }

    void fullTextSyntaxIsNeverAnError_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        const QStringList all = ids(m_filterStore->summaries().value());
        QTest::newRow("quote and paren") << "\"a\" OR (b" << QStringList{};
        QTest::newRow("OR is a word") << "relu OR softmax" << QStringList{};
        QTest::newRow("quoted word") << "\"relu\"" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("open paren") << "(relu" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("star suffix") << "rel*" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("NEAR") << "NEAR(relu torch, 2)" << QStringList{};
        QTest::newRow("bare NEAR") << "NEAR" << QStringList{};
        QTest::newRow("column filter") << "title:relu" << QStringList{};
        QTest::newRow("caret and minus") << "^relu -torch" << QStringList{"gemm-bias-relu", "relu"};
        QTest::newRow("only a star") << "*" << all;
        QTest::newRow("only punctuation") << "\"\"()*:^-+" << all;
        QTest::newRow("sql") << "'; DROP TABLE tasks; --" << QStringList{};
        QTest::newRow("unicode") << QString::fromUtf8("normalisation \xc3\xa9t\xc3\xa9 \xe2\x88\x91") << QStringList{};
    }
    void fullTextSyntaxIsNeverAnError()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        TaskFilter f;
        f.text = text;
        auto found = m_filterStore->summaries(f);
        VERIFY_OK(found);
        QStringList got = ids(found.value());
        got.sort();
        QCOMPARE(got, expected);
        QCOMPARE(m_filterStore->count().value(), 8);
    }

    void failingBatchRollsBack_data()
    {
        QTest::addColumn<QList<Task>>("batch");
        QTest::addColumn<QString>("badId");
        Task fresh = makeTask("fresh", "Fresh zebra task", 1, {"other"}, {P::Description}, S::Draft, "zebra", "");
        Task edit = filterTasks().first();
        edit.title = "Edited title that must not stay";
        Task level9 = makeTask("bad-level", "Bad", 9, {}, {P::Description}, S::Draft, "", "");
        Task level0 = level9;
        level0.level = 0;
        Task noShown = makeTask("bad-shown", "Nothing shown", 1, {}, {}, S::Draft, "", "");
        QTest::newRow("bad last") << QList<Task>{fresh, edit, level9} << "bad-level";
        QTest::newRow("bad first") << QList<Task>{level0, fresh, edit} << "bad-level";
        QTest::newRow("bad in middle") << QList<Task>{edit, noShown, fresh} << "bad-shown";
    }
    void failingBatchRollsBack()
    {
        QFETCH(QList<Task>, batch);
        QFETCH(QString, badId);
        auto store = openStore(newPath());
        QVERIFY(store);
        VERIFY_OK(store->upsertTasks(filterTasks(), "test", "seed"));
        const qint64 audit = scalar(store->database(), "SELECT count(*) FROM audit_log");
        const QByteArray relu = dump(store->task("relu").value().value());

        auto r = store->upsertTasks(batch, "test", "bad batch");
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Database);
        QVERIFY2(r.error().message.contains(badId), qPrintable(r.error().message));
        QCOMPARE(store->count().value(), 8);
        QVERIFY(!store->task("fresh").value().has_value());
        QCOMPARE(dump(store->task("relu").value().value()), relu);
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM audit_log"), audit);
        QCOMPARE(scalar(store->database(), "SELECT count(*) FROM task_categories WHERE task_id = 'fresh'"), qint64(0));
        TaskFilter f;
        f.text = "zebra";
        QVERIFY(store->summaries(f)->isEmpty());
        // The transaction is closed: the next batch goes through.
        for (const Task& t : batch)
            if (t.id == "fresh")
                QCOMPARE(store->upsertTask(t, "test", "after").value(), UpsertOutcome::Created);
        QCOMPARE(store->count().value(), 9);
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "test_store.moc"
