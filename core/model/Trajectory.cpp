#include "model/Trajectory.h"

#include <array>

namespace km {

namespace {
template <typename E> struct Name {
    E value;
    const char* text;
};
constexpr std::array<Name<RunState>, 5> kRunStates{{{RunState::Running, "running"},
                                                    {RunState::Completed, "completed"},
                                                    {RunState::Interrupted, "interrupted"},
                                                    {RunState::Cancelled, "cancelled"},
                                                    {RunState::Failed, "failed"}}};
constexpr std::array<Name<Stage>, 3> kStages{
    {{Stage::Implement, "implement"}, {Stage::Repair, "repair"}, {Stage::Optimise, "optimise"}}};

template <typename E, std::size_t N> QString textOf(const std::array<Name<E>, N>& names, E value)
{
    for (const Name<E>& n : names)
        if (n.value == value)
            return QString::fromLatin1(n.text);
    return {};
}

template <typename E, std::size_t N> std::optional<E> valueOf(const std::array<Name<E>, N>& names, const QString& text)
{
    for (const Name<E>& n : names)
        if (text == QLatin1String(n.text))
            return n.value;
    return std::nullopt;
}

template <typename E, std::size_t N> QStringList allOf(const std::array<Name<E>, N>& names)
{
    QStringList out;
    for (const Name<E>& n : names)
        out.append(QString::fromLatin1(n.text));
    return out;
}
}  // namespace

QString toString(RunState s)
{
    return textOf(kRunStates, s);
}

QString toString(Stage s)
{
    return textOf(kStages, s);
}

std::optional<RunState> runStateFromString(const QString& text)
{
    return valueOf(kRunStates, text);
}

std::optional<Stage> stageFromString(const QString& text)
{
    return valueOf(kStages, text);
}

QStringList runStateNames()
{
    return allOf(kRunStates);
}

QStringList stageNames()
{
    return allOf(kStages);
}

std::optional<ForkOrigin> forkOriginOf(const AgentRun& run)
{
    const QVariantMap link = run.settings.value(QStringLiteral("forked_from")).toMap();
    const qint64 id = link.value(QStringLiteral("run_id")).toLongLong();
    if (id <= 0)
        return std::nullopt;
    return ForkOrigin{id, link.value(QStringLiteral("step")).toInt(),
                      link.value(QStringLiteral("started_at")).toString()};
}

}  // namespace km
