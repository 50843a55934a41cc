#include "model/TaskChecks.h"

#include <QRegularExpression>
#include <QSet>

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

}  // namespace km
