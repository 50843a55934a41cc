#include "model/TaskVariant.h"

#include <QSet>

namespace km {
namespace {

Error fieldError(const QString& key, const QString& reason)
{
    return makeError(ErrorCode::InvalidInput, QStringLiteral("'%1': %2").arg(key, reason), key);
}

bool isInteger(const QVariant& v)
{
    return v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Int;
}
bool isNumber(const QVariant& v)
{
    return isInteger(v) || v.typeId() == QMetaType::Double;
}
bool isString(const QVariant& v)
{
    return v.typeId() == QMetaType::QString;
}

std::optional<Error> readString(const QVariantMap& m, const QString& key, QString* out, bool required)
{
    if (!m.contains(key))
        return required ? std::optional(fieldError(key, QStringLiteral("missing"))) : std::nullopt;
    if (!isString(m.value(key)))
        return fieldError(key, QStringLiteral("expected a string"));
    *out = m.value(key).toString();
    return std::nullopt;
}

std::optional<Error> readStringList(const QVariantMap& m, const QString& key, QStringList* out)
{
    if (!m.contains(key))
        return std::nullopt;
    if (m.value(key).typeId() != QMetaType::QVariantList)
        return fieldError(key, QStringLiteral("expected an array of strings"));
    const QVariantList list = m.value(key).toList();
    for (int i = 0; i < list.size(); ++i) {
        if (!isString(list[i]))
            return fieldError(QStringLiteral("%1[%2]").arg(key).arg(i), QStringLiteral("expected a string"));
        out->append(list[i].toString());
    }
    return std::nullopt;
}

std::optional<Error> checkKeys(const QVariantMap& m, const QString& where, const QSet<QString>& allowed)
{
    for (auto it = m.cbegin(); it != m.cend(); ++it)
        if (!allowed.contains(it.key()))
            return fieldError(where.isEmpty() ? it.key() : where + QLatin1Char('.') + it.key(),
                              QStringLiteral("unknown key"));
    return std::nullopt;
}

bool isConfigValue(const QVariant& v, int depth = 0)
{
    if (isNumber(v) || isString(v) || v.typeId() == QMetaType::Bool)
        return true;
    if (v.typeId() == QMetaType::QVariantList && depth < 4) {
        for (const QVariant& e : v.toList())
            if (!isConfigValue(e, depth + 1))
                return false;
        return true;
    }
    return false;
}

std::optional<Error> readSource(const QVariantMap& m, TaskSource* src)
{
    if (!m.contains(QStringLiteral("source")))
        return std::nullopt;  // bundled
    if (m.value(QStringLiteral("source")).typeId() != QMetaType::QVariantMap)
        return fieldError(QStringLiteral("source"), QStringLiteral("expected a table"));
    const QVariantMap s = m.value(QStringLiteral("source")).toMap();
    if (auto e = checkKeys(s, QStringLiteral("source"), {"kind", "level", "problem", "name", "path", "line"}))
        return e;
    QString kind = QStringLiteral("bundled");
    if (auto e = readString(s, QStringLiteral("kind"), &kind, false))
        return fieldError(QStringLiteral("source.kind"), e->message);
    const auto k = sourceKindFromString(kind);
    if (!k)
        return fieldError(QStringLiteral("source.kind"),
                          QStringLiteral("'%1' is not one of bundled, kernelbench, file").arg(kind));
    src->kind = *k;
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("level"), &src->kbLevel}, std::pair{QStringLiteral("problem"), &src->kbProblem},
          std::pair{QStringLiteral("line"), &src->line}}) {
        if (!s.contains(key))
            continue;
        if (!isInteger(s.value(key)))
            return fieldError(QStringLiteral("source.") + key, QStringLiteral("expected an integer"));
        *target = int(s.value(key).toLongLong());
    }
    if (auto e = readString(s, QStringLiteral("name"), &src->kbName, false))
        return e;
    if (auto e = readString(s, QStringLiteral("path"), &src->path, false))
        return e;
    return std::nullopt;
}

std::optional<Error> readConfigs(const QVariantMap& m, QList<TaskConfig>* configs)
{
    if (!m.contains(QStringLiteral("configs")))
        return std::nullopt;
    if (m.value(QStringLiteral("configs")).typeId() != QMetaType::QVariantList)
        return fieldError(QStringLiteral("configs"), QStringLiteral("expected an array of tables"));
    const QVariantList list = m.value(QStringLiteral("configs")).toList();
    for (int i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("configs[%1]").arg(i);
        if (list[i].typeId() != QMetaType::QVariantMap)
            return fieldError(where, QStringLiteral("expected a table"));
        QVariantMap c = list[i].toMap();
        TaskConfig config;
        if (auto e = readString(c, QStringLiteral("name"), &config.name, true))
            return fieldError(where + QStringLiteral(".name"), e->message.section(QStringLiteral(": "), 1));
        c.remove(QStringLiteral("name"));
        for (auto it = c.cbegin(); it != c.cend(); ++it)
            if (!isConfigValue(it.value()))
                return fieldError(where + QLatin1Char('.') + it.key(),
                                  QStringLiteral("expected a number, string, boolean or array of them"));
        config.values = c;
        configs->append(config);
    }
    return std::nullopt;
}

}  // namespace

QVariantMap taskToVariant(const Task& t, bool withTexts)
{
    QVariantMap m;
    m.insert(QStringLiteral("id"), t.id);
    m.insert(QStringLiteral("title"), t.title);
    m.insert(QStringLiteral("level"), qint64(t.level));
    m.insert(QStringLiteral("categories"), QVariantList(t.categories.cbegin(), t.categories.cend()));
    m.insert(QStringLiteral("tags"), QVariantList(t.tags.cbegin(), t.tags.cend()));
    m.insert(QStringLiteral("dtype"), t.dtype);
    const QStringList shown = t.shown.names();
    m.insert(QStringLiteral("shown"), QVariantList(shown.cbegin(), shown.cend()));
    m.insert(QStringLiteral("status"), toString(t.status));
    if (!t.forbiddenOps.isEmpty())
        m.insert(QStringLiteral("forbidden_ops"), QVariantList(t.forbiddenOps.cbegin(), t.forbiddenOps.cend()));

    QVariantMap src{{QStringLiteral("kind"), toString(t.source.kind)}};
    if (t.source.kind == SourceKind::KernelBench) {
        src.insert(QStringLiteral("level"), qint64(t.source.kbLevel));
        src.insert(QStringLiteral("problem"), qint64(t.source.kbProblem));
        src.insert(QStringLiteral("name"), t.source.kbName);
    }
    if (!t.source.path.isEmpty())
        src.insert(QStringLiteral("path"), t.source.path);
    if (t.source.line > 0)
        src.insert(QStringLiteral("line"), qint64(t.source.line));
    m.insert(QStringLiteral("source"), src);

    if (t.tolerance)
        m.insert(QStringLiteral("tolerance"),
                 QVariantMap{{QStringLiteral("atol"), t.tolerance->atol}, {QStringLiteral("rtol"), t.tolerance->rtol}});
    QVariantMap formulas;
    if (!t.flopsFormula.isEmpty())
        formulas.insert(QStringLiteral("flops"), t.flopsFormula);
    if (!t.bytesFormula.isEmpty())
        formulas.insert(QStringLiteral("bytes"), t.bytesFormula);
    if (!formulas.isEmpty())
        m.insert(QStringLiteral("formulas"), formulas);
    if (!t.configs.isEmpty()) {
        QVariantList configs;
        for (const TaskConfig& c : t.configs) {
            QVariantMap cm = c.values;
            cm.insert(QStringLiteral("name"), c.name);
            configs.append(cm);
        }
        m.insert(QStringLiteral("configs"), configs);
    }
    if (withTexts) {
        m.insert(QStringLiteral("description"), t.description);
        m.insert(QStringLiteral("reference"), t.reference);
        m.insert(QStringLiteral("spec"), t.spec);
    }
    return m;
}

Result<Task> taskFromVariant(const QVariantMap& m, bool withTexts, QList<Error>* allErrors)
{
    // Every key is checked, so a file with several mistakes lists them all at once.
    QList<Error> errors;
    const auto note = [&errors](std::optional<Error> e) {
        if (e)
            errors.append(std::move(*e));
    };
    QSet<QString> allowed{"id",     "title",         "level",  "categories", "tags",     "dtype",  "shown",
                          "status", "forbidden_ops", "source", "tolerance",  "formulas", "configs"};
    if (withTexts)
        allowed += QSet<QString>{"description", "reference", "spec"};
    for (auto it = m.cbegin(); it != m.cend(); ++it)
        note(checkKeys({{it.key(), it.value()}}, {}, allowed));

    Task t;
    note(readString(m, QStringLiteral("id"), &t.id, true));
    note(readString(m, QStringLiteral("title"), &t.title, true));
    if (!m.contains(QStringLiteral("level")) || !isInteger(m.value(QStringLiteral("level"))))
        note(fieldError(QStringLiteral("level"), QStringLiteral("expected an integer 1-4")));
    else
        t.level = int(m.value(QStringLiteral("level")).toLongLong());
    note(readStringList(m, QStringLiteral("categories"), &t.categories));
    note(readStringList(m, QStringLiteral("tags"), &t.tags));
    note(readStringList(m, QStringLiteral("forbidden_ops"), &t.forbiddenOps));
    note(readString(m, QStringLiteral("dtype"), &t.dtype, false));

    QStringList shown;
    note(readStringList(m, QStringLiteral("shown"), &shown));
    for (const QString& s : shown) {
        const auto p = presentationFromString(s);
        if (!p)
            note(fieldError(QStringLiteral("shown"),
                            QStringLiteral("'%1' is not one of description, reference, spec").arg(s)));
        else
            t.shown.add(*p);
    }
    QString status = QStringLiteral("draft");
    if (auto e = readString(m, QStringLiteral("status"), &status, false)) {
        note(e);
    } else if (const auto st = reviewStatusFromString(status); !st) {
        note(fieldError(
            QStringLiteral("status"),
            QStringLiteral("'%1' is not one of draft, in_review, accepted, rejected, needs_changes").arg(status)));
    } else {
        t.status = *st;
    }

    note(readSource(m, &t.source));
    if (m.contains(QStringLiteral("tolerance"))) {
        const QVariantMap tol = m.value(QStringLiteral("tolerance")).toMap();
        if (auto e = checkKeys(tol, QStringLiteral("tolerance"), {"atol", "rtol"}))
            note(e);
        else if (!isNumber(tol.value(QStringLiteral("atol"))) || !isNumber(tol.value(QStringLiteral("rtol"))))
            note(fieldError(QStringLiteral("tolerance"), QStringLiteral("needs numbers atol and rtol")));
        else
            t.tolerance =
                Tolerance{tol.value(QStringLiteral("atol")).toDouble(), tol.value(QStringLiteral("rtol")).toDouble()};
    }
    if (m.contains(QStringLiteral("formulas"))) {
        const QVariantMap f = m.value(QStringLiteral("formulas")).toMap();
        note(checkKeys(f, QStringLiteral("formulas"), {"flops", "bytes"}));
        if (readString(f, QStringLiteral("flops"), &t.flopsFormula, false))
            note(fieldError(QStringLiteral("formulas.flops"), QStringLiteral("expected a string")));
        if (readString(f, QStringLiteral("bytes"), &t.bytesFormula, false))
            note(fieldError(QStringLiteral("formulas.bytes"), QStringLiteral("expected a string")));
    }
    note(readConfigs(m, &t.configs));
    if (withTexts) {
        for (const auto& [key, target] :
             {std::pair{QStringLiteral("description"), &t.description},
              std::pair{QStringLiteral("reference"), &t.reference}, std::pair{QStringLiteral("spec"), &t.spec}})
            note(readString(m, key, target, false));
    }
    if (allErrors)
        *allErrors = errors;
    if (!errors.isEmpty())
        return errors.first();
    return t;
}

}  // namespace km
