#include "model/ScrubbedValues.h"

namespace km {

namespace {
QVariantList scrubbedList(const QVariantList& list, const SecretScrubber& secrets)
{
    return secrets.scrub(QVariant(list)).toList();
}
}  // namespace

Verdict scrubbed(Verdict v, const SecretScrubber& secrets)
{
    if (secrets.isEmpty())
        return v;
    for (QString* s : {&v.harnessVersion, &v.executor, &v.isolation, &v.summary})
        *s = secrets.scrub(*s);
    for (Finding& f : v.findings) {
        f.check = secrets.scrub(f.check);
        f.message = secrets.scrub(f.message);
    }
    for (SolutionDiagnostic& d : v.diagnostics) {
        d.severity = secrets.scrub(d.severity);
        d.generatedFile = secrets.scrub(d.generatedFile);
        d.message = secrets.scrub(d.message);
    }
    v.environment = secrets.scrub(v.environment);
    v.evidence = secrets.scrub(v.evidence);
    return v;
}

TrajectoryStep scrubbed(TrajectoryStep step, const SecretScrubber& secrets)
{
    if (secrets.isEmpty())
        return step;
    for (QString* s : {&step.templateName, &step.prompt, &step.reply, &step.code, &step.diff, &step.error, &step.status,
                       &step.summary})
        *s = secrets.scrub(*s);
    step.messages = scrubbedList(step.messages, secrets);
    step.guidance = scrubbedList(step.guidance, secrets);
    step.usage = secrets.scrub(step.usage);
    return step;
}

AgentRun scrubbed(AgentRun run, const SecretScrubber& secrets)
{
    if (secrets.isEmpty())
        return run;
    for (QString* s : {&run.kind, &run.model, &run.promptVersion, &run.error})
        *s = secrets.scrub(*s);
    run.settings = secrets.scrub(run.settings);
    run.budgets = secrets.scrub(run.budgets);
    run.totals = secrets.scrub(run.totals);
    return run;
}

BundledRun scrubbed(BundledRun run, const SecretScrubber& secrets)
{
    if (secrets.isEmpty())
        return run;
    run.run = scrubbed(std::move(run.run), secrets);
    run.taskTitle = secrets.scrub(run.taskTitle);
    for (BundledStep& s : run.steps) {
        s.step = scrubbed(std::move(s.step), secrets);
        if (s.verdict)
            s.verdict = scrubbed(std::move(*s.verdict), secrets);
    }
    return run;
}

}  // namespace km
