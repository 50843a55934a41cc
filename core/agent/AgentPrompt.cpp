#include "agent/AgentPrompt.h"

namespace km {

namespace {
QString configsText(const Task& task)
{
    QStringList lines;
    for (const TaskConfig& c : task.configs) {
        if (isHiddenConfig(c.name))
            continue;
        QStringList values;
        for (auto it = c.values.cbegin(); it != c.values.cend(); ++it) {
            QString v = it.value().typeId() == QMetaType::QVariantList
                            ? it.value().toStringList().join(QLatin1Char(','))
                            : it.value().toString();
            values << QStringLiteral("%1=%2").arg(it.key(), v);
        }
        lines << QStringLiteral("  - %1: %2").arg(c.name, values.join(QStringLiteral(", ")));
    }
    return lines.join(QLatin1Char('\n'));
}
}  // namespace

QHash<QString, QString> promptValues(const Task& task, const PromptInputs& in)
{
    QHash<QString, QString> v;
    v.insert(QStringLiteral("task_title"), task.title.isEmpty() ? task.id : task.title);
    v.insert(QStringLiteral("task_id"), task.id);
    // What the model sees of the task follows the presentations the task shows (none chosen: all it has).
    const PresentationSet shown = !in.withTask ? PresentationSet() : task.shown.isEmpty() ? task.present() : task.shown;
    if (shown.has(Presentation::Description))
        v.insert(QStringLiteral("description"), task.description.trimmed());
    if (shown.has(Presentation::Reference))
        v.insert(QStringLiteral("reference"), task.reference.trimmed());
    if (shown.has(Presentation::Spec))
        v.insert(QStringLiteral("specification"), task.spec.trimmed());
    v.insert(QStringLiteral("dtype"), task.dtype);
    v.insert(QStringLiteral("configs"), configsText(task));
    const Tolerance tol = task.tolerance.value_or(defaultTolerance(task.dtype));
    v.insert(QStringLiteral("tolerance"), QStringLiteral("atol %1, rtol %2").arg(tol.atol).arg(tol.rtol));
    v.insert(QStringLiteral("forbidden_ops"), task.forbiddenOps.join(QStringLiteral(", ")));
    v.insert(QStringLiteral("guidance"), in.guidance);
    v.insert(QStringLiteral("attempt"),
             in.maxTurns > 0 ? QStringLiteral("%1 of %2").arg(in.turn).arg(in.maxTurns) : QString::number(in.turn));
    v.insert(QStringLiteral("code"), in.previousCode);
    v.insert(QStringLiteral("problem"), in.problem);
    if (in.problem.contains(QLatin1String("cut off")) || in.problem.contains(QLatin1String("larger than")))
        v.insert(QStringLiteral("truncated"), in.problem);
    if (const auto& fb = in.feedback) {
        v.insert(QStringLiteral("status"), fb->status);
        v.insert(QStringLiteral("summary"), fb->summary);
        v.insert(QStringLiteral("diagnostics"), fb->diagnostics);
        v.insert(QStringLiteral("failure"), fb->failure);
        v.insert(QStringLiteral("error"), fb->error);
        v.insert(QStringLiteral("findings"), fb->findings);
        v.insert(QStringLiteral("timing"),
                 fb->timing.isEmpty() ? QStringLiteral("no timing was measured") : fb->timing);
        v.insert(QStringLiteral("best"), fb->best);
        v.insert(QStringLiteral("profile"), fb->profile);
    }
    return v;
}

}  // namespace km
