#include "curate/TaskValidator.h"

#include <QRegularExpression>
#include <QSet>
#include <cmath>

namespace km {

bool isValidTaskId(const QString& id)
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9][a-z0-9._-]{0,79}$"));
    return re.match(id).hasMatch();
}

QList<ValidationIssue> validateStructure(const Task& t)
{
    QList<ValidationIssue> out;
    auto error = [&](const QString& field, const QString& msg) {
        out.append({true, field, msg});
    };

    if (!isValidTaskId(t.id))
        error(QStringLiteral("id"), QStringLiteral("'%1' is not a valid id (lower-case letters, digits, '.', '_', "
                                                   "'-'; at most 80 characters)")
                                        .arg(t.id));
    if (t.title.trimmed().isEmpty())
        error(QStringLiteral("title"), QStringLiteral("is empty"));
    if (t.level < 1 || t.level > 4)
        error(QStringLiteral("level"), QStringLiteral("%1 is not 1, 2, 3 or 4").arg(t.level));
    for (const QString& c : t.categories)
        if (!knownCategories().contains(c))
            error(QStringLiteral("categories"), QStringLiteral("unknown category '%1' (known: %2)")
                                                    .arg(c, knownCategories().join(QStringLiteral(", "))));
    for (const auto& [field, list] :
         {std::pair{QStringLiteral("categories"), &t.categories}, std::pair{QStringLiteral("tags"), &t.tags},
          std::pair{QStringLiteral("forbidden_ops"), &t.forbiddenOps}}) {
        QSet<QString> seen;
        for (const QString& v : *list) {
            if (seen.contains(v))
                error(field, QStringLiteral("'%1' is listed twice").arg(v));
            seen.insert(v);
        }
    }
    if (!knownDtypes().contains(t.dtype))
        error(QStringLiteral("dtype"),
              QStringLiteral("unknown dtype '%1' (known: %2)").arg(t.dtype, knownDtypes().join(QStringLiteral(", "))));

    const PresentationSet present = t.present();
    if (present.isEmpty())
        error(QStringLiteral("shown"), QStringLiteral("the task has no description, reference or specification"));
    if (t.shown.isEmpty())
        error(QStringLiteral("shown"), QStringLiteral("must name at least one presentation"));
    for (Presentation p : allPresentations())
        if (t.shown.has(p) && !present.has(p))
            error(QStringLiteral("shown"), QStringLiteral("shows '%1' but the task has none").arg(toString(p)));

    return out;
}

QList<ValidationIssue> validateTask(const Task& t)
{
    QList<ValidationIssue> out = validateStructure(t);
    auto error = [&](const QString& field, const QString& msg) {
        out.append({true, field, msg});
    };
    auto warn = [&](const QString& field, const QString& msg) {
        out.append({false, field, msg});
    };
    const PresentationSet present = t.present();
    if (!present.has(Presentation::Reference)) {
        warn(QStringLiteral("reference.py"), QStringLiteral("no reference program: the task cannot be verified"));
    } else {
        static const QRegularExpression model(QStringLiteral("^class\\s+Model\\s*\\("),
                                              QRegularExpression::MultilineOption);
        static const QRegularExpression inputs(QStringLiteral("^def\\s+get_inputs\\s*\\("),
                                               QRegularExpression::MultilineOption);
        static const QRegularExpression init(QStringLiteral("^def\\s+get_init_inputs\\s*\\("),
                                             QRegularExpression::MultilineOption);
        if (!model.match(t.reference).hasMatch())
            error(QStringLiteral("reference.py"), QStringLiteral("defines no top-level 'class Model(...)'"));
        if (!inputs.match(t.reference).hasMatch())
            error(QStringLiteral("reference.py"), QStringLiteral("defines no top-level 'def get_inputs()'"));
        if (!init.match(t.reference).hasMatch())
            error(QStringLiteral("reference.py"), QStringLiteral("defines no top-level 'def get_init_inputs()'"));
    }

    if (t.tolerance) {
        for (const auto& [name, v] : {std::pair{QStringLiteral("atol"), t.tolerance->atol},
                                      std::pair{QStringLiteral("rtol"), t.tolerance->rtol}})
            if (!std::isfinite(v) || v < 0 || v > 1)
                error(QStringLiteral("tolerance.") + name, QStringLiteral("%1 is not within [0, 1]").arg(v));
    }
    QSet<QString> names;
    for (int i = 0; i < t.configs.size(); ++i) {
        const TaskConfig& c = t.configs[i];
        const QString where = QStringLiteral("configs[%1]").arg(i);
        if (!isValidTaskId(c.name))
            error(where + QStringLiteral(".name"),
                  QStringLiteral("'%1' is not a valid configuration name").arg(c.name));
        if (names.contains(c.name))
            error(where + QStringLiteral(".name"), QStringLiteral("duplicate configuration '%1'").arg(c.name));
        names.insert(c.name);
        if (c.values.isEmpty())
            warn(where, QStringLiteral("configuration '%1' changes nothing").arg(c.name));
        for (auto it = c.values.cbegin(); it != c.values.cend(); ++it) {
            static const QRegularExpression ident(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
            if (!ident.match(it.key()).hasMatch())
                error(where + QLatin1Char('.') + it.key(), QStringLiteral("is not a Python identifier"));
            else if (present.has(Presentation::Reference) &&
                     !QRegularExpression(QStringLiteral("^%1\\s*=").arg(it.key()), QRegularExpression::MultilineOption)
                          .match(t.reference)
                          .hasMatch())
                error(where + QLatin1Char('.') + it.key(),
                      QStringLiteral("'%1' is not a module-level constant of reference.py").arg(it.key()));
        }
    }
    return out;
}

}  // namespace km
