#include "store/TaskRows.h"

#include "model/TaskVariant.h"
#include "util/Json.h"

#include <QRegularExpression>

namespace km {

QString ftsQueryFor(const QString& text)
{
    static const QRegularExpression word(QStringLiteral("[\\p{L}\\p{N}_]+"));
    QStringList terms;
    for (auto it = word.globalMatch(text); it.hasNext();)
        terms.append(QStringLiteral("\"%1\"*").arg(it.next().captured(0)));
    return terms.join(QLatin1Char(' '));
}

namespace store {
namespace {
const char* const kContentColumns[] = {
    "id",   "title",         "level",         "source",  "dtype",       "shown",     "forbidden_ops", "atol",
    "rtol", "flops_formula", "bytes_formula", "configs", "description", "reference", "spec",          "content_hash"};

QString placeholders(int n)
{
    QStringList p;
    for (int i = 0; i < n; ++i)
        p.append(QStringLiteral("?"));
    return p.join(QLatin1Char(','));
}

QVariantList configsVariant(const QList<TaskConfig>& configs)
{
    QVariantList out;
    for (const TaskConfig& c : configs) {
        QVariantMap m = c.values;
        m.insert(QStringLiteral("name"), c.name);
        out.append(m);
    }
    return out;
}

QVariantList stringsVariant(const QStringList& l)
{
    return QVariantList(l.cbegin(), l.cend());
}
}  // namespace

QVariantList contentBindings(const Task& t, const QByteArray& hash)
{
    const QVariantMap source = taskToVariant(t, false).value(QStringLiteral("source")).toMap();
    return {t.id,
            t.title,
            t.level,
            QString::fromUtf8(json::write(source)),
            t.dtype,
            t.shown.bits(),
            QString::fromUtf8(json::write(stringsVariant(t.forbiddenOps))),
            t.tolerance ? QVariant(t.tolerance->atol) : QVariant(QMetaType(QMetaType::Double)),
            t.tolerance ? QVariant(t.tolerance->rtol) : QVariant(QMetaType(QMetaType::Double)),
            t.flopsFormula,
            t.bytesFormula,
            QString::fromUtf8(json::write(configsVariant(t.configs))),
            t.description,
            t.reference,
            t.spec,
            QString::fromLatin1(hash)};
}

QString insertTaskSql()
{
    QStringList cols;
    for (const char* c : kContentColumns)
        cols.append(QLatin1String(c));
    cols << QStringLiteral("status") << QStringLiteral("created_at") << QStringLiteral("updated_at");
    return QStringLiteral("INSERT INTO tasks(%1) VALUES (%2)")
        .arg(cols.join(QLatin1Char(',')), placeholders(int(cols.size())));
}

QString updateTaskSql()
{
    QStringList sets;
    for (const char* c : kContentColumns)
        sets.append(QStringLiteral("%1 = ?").arg(QLatin1String(c)));
    sets << QStringLiteral("updated_at = ?");
    return QStringLiteral("UPDATE tasks SET %1 WHERE id = ?").arg(sets.join(QLatin1Char(',')));
}

QString selectTaskSql()
{
    QStringList cols;
    for (const char* c : kContentColumns)
        cols.append(QLatin1String(c));
    cols << QStringLiteral("status");
    return QStringLiteral("SELECT %1 FROM tasks").arg(cols.join(QLatin1Char(',')));
}

Result<Task> taskFromRow(Row& row)
{
    // The row was written by contentBindings(); reuse the variant decoder so both formats agree on types.
    QVariantMap m;
    m.insert(QStringLiteral("id"), row.text("id"));
    m.insert(QStringLiteral("title"), row.text("title"));
    m.insert(QStringLiteral("level"), row.integer("level"));
    m.insert(QStringLiteral("source"), json::parse(row.value("source").toByteArray(), nullptr).value_or(QVariantMap()));
    m.insert(QStringLiteral("dtype"), row.text("dtype"));
    m.insert(QStringLiteral("shown"), stringsVariant(PresentationSet(int(row.integer("shown"))).names()));
    const QVariant ops = json::parse(row.value("forbidden_ops").toByteArray(), nullptr).value_or(QVariantList());
    if (!ops.toList().isEmpty())
        m.insert(QStringLiteral("forbidden_ops"), ops);
    if (!row.isNull("atol"))
        m.insert(QStringLiteral("tolerance"), QVariantMap{{QStringLiteral("atol"), row.value("atol").toDouble()},
                                                          {QStringLiteral("rtol"), row.value("rtol").toDouble()}});
    QVariantMap formulas;
    if (const QString flops = row.text("flops_formula"); !flops.isEmpty())
        formulas.insert(QStringLiteral("flops"), flops);
    if (const QString bytes = row.text("bytes_formula"); !bytes.isEmpty())
        formulas.insert(QStringLiteral("bytes"), bytes);
    if (!formulas.isEmpty())
        m.insert(QStringLiteral("formulas"), formulas);
    const QVariant configs = json::parse(row.value("configs").toByteArray(), nullptr).value_or(QVariantList());
    if (!configs.toList().isEmpty())
        m.insert(QStringLiteral("configs"), configs);
    m.insert(QStringLiteral("description"), row.text("description"));
    m.insert(QStringLiteral("reference"), row.text("reference"));
    m.insert(QStringLiteral("spec"), row.text("spec"));
    m.insert(QStringLiteral("status"), row.text("status"));
    if (Status st = row.status(); !st)
        return st.error();
    auto t = taskFromVariant(m);
    return t ? t.value() : Task{};
}

namespace {
// FROM, JOIN and WHERE of a filtered task list (alias t); *ranked tells whether tasks_fts is joined.
// Appends the values to the bindings and returns their placeholders ("?,?,?").
QString bindList(const QVariantList& values, QVariantList* b)
{
    b->append(values);
    return placeholders(int(values.size()));
}

QString filterSql(const TaskFilter& f, QVariantList* b, bool* ranked)
{
    QString sql = QStringLiteral(" FROM tasks t");
    QStringList where;
    const QString fts = ftsQueryFor(f.text);
    if (!fts.isEmpty()) {
        sql += QStringLiteral(" JOIN tasks_fts ON tasks_fts.rowid = t.task_pk");
        where.append(QStringLiteral("tasks_fts MATCH ?"));
        b->append(fts);
    }
    if (!f.statuses.isEmpty()) {
        QVariantList names;
        for (ReviewStatus st : f.statuses)
            names.append(toString(st));
        where.append(QStringLiteral("t.status IN (%1)").arg(bindList(names, b)));
    }
    if (!f.levels.isEmpty())
        where.append(
            QStringLiteral("t.level IN (%1)").arg(bindList(QVariantList(f.levels.cbegin(), f.levels.cend()), b)));
    if (!f.categories.isEmpty())
        where.append(QStringLiteral("EXISTS (SELECT 1 FROM task_categories c WHERE c.task_id = t.id AND "
                                    "c.category IN (%1))")
                         .arg(bindList(stringsVariant(f.categories), b)));
    if (!f.presentations.isEmpty()) {
        PresentationSet wanted;
        for (Presentation p : f.presentations)
            wanted.add(p);
        const int bits = wanted.bits();
        where.append(QStringLiteral("(t.shown & ?) = ?"));
        *b << bits << bits;
    }
    if (!f.ids.isEmpty())
        where.append(QStringLiteral("t.id IN (%1)").arg(bindList(stringsVariant(f.ids), b)));
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    *ranked = !fts.isEmpty();
    return sql;
}

QString limitSql(const TaskFilter& f)
{
    return f.limit > 0 ? QStringLiteral(" LIMIT %1").arg(f.limit) : QString();
}
}  // namespace

QString summarySql(const TaskFilter& f, QVariantList* b)
{
    bool ranked = false;
    const QString from = filterSql(f, b, &ranked);
    return QStringLiteral(
               "SELECT t.id AS id, t.title AS title, t.level AS level, t.shown AS shown, t.status AS status,"
               " t.updated_at AS updated_at,"
               " (trim(t.description) <> '') | ((trim(t.reference) <> '') << 1) | ((trim(t.spec) <> '') << 2)"
               " AS present,"
               " (SELECT group_concat(category, char(31)) FROM"
               "   (SELECT category FROM task_categories c WHERE c.task_id = t.id ORDER BY position)) AS categories,"
               " (SELECT reviewer FROM reviews r WHERE r.task_id = t.id ORDER BY r.id DESC LIMIT 1) AS last_reviewer") +
           from + (ranked ? QStringLiteral(" ORDER BY tasks_fts.rank, t.id") : QStringLiteral(" ORDER BY t.id")) +
           limitSql(f);
}

QString idsSql(const TaskFilter& f, QVariantList* b)
{
    bool ranked = false;
    return QStringLiteral("SELECT t.id AS id") + filterSql(f, b, &ranked) + QStringLiteral(" ORDER BY t.id") +
           limitSql(f);
}

Result<TaskSummary> summaryFromRow(Row& row)
{
    TaskSummary s;
    s.id = row.text("id");
    s.title = row.text("title");
    s.level = int(row.integer("level"));
    s.shown = PresentationSet(int(row.integer("shown")));
    s.status = reviewStatusFromString(row.text("status")).value_or(ReviewStatus::Draft);
    s.updatedAt = QDateTime::fromString(row.text("updated_at"), Qt::ISODateWithMs);
    s.present = PresentationSet(int(row.integer("present")));
    const QString cats = row.text("categories");
    if (!cats.isEmpty())
        s.categories = cats.split(QChar(31));
    s.lastReviewer = row.text("last_reviewer");
    if (Status st = row.status(); !st)
        return st.error();
    return s;
}

}  // namespace store
}  // namespace km
