#include "curate/TaskValidator.h"

#include <QRegularExpression>
#include <QSet>
#include <cmath>

namespace km {

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
