#include "model/Task.h"

#include "model/TaskVariant.h"
#include "util/Json.h"

#include <QCryptographicHash>

namespace km {

namespace {
template <typename E> struct Names {
    E value;
    const char* name;
};
constexpr Names<ReviewStatus> kStatusNames[] = {{ReviewStatus::Draft, "draft"},
                                                {ReviewStatus::InReview, "in_review"},
                                                {ReviewStatus::Accepted, "accepted"},
                                                {ReviewStatus::Rejected, "rejected"},
                                                {ReviewStatus::NeedsChanges, "needs_changes"}};
constexpr Names<Presentation> kPresentationNames[] = {
    {Presentation::Description, "description"}, {Presentation::Reference, "reference"}, {Presentation::Spec, "spec"}};
constexpr Names<SourceKind> kSourceNames[] = {
    {SourceKind::Bundled, "bundled"}, {SourceKind::KernelBench, "kernelbench"}, {SourceKind::File, "file"}};

template <typename E, size_t N> QString nameOf(const Names<E> (&table)[N], E v)
{
    for (const auto& n : table)
        if (n.value == v)
            return QString::fromLatin1(n.name);
    return {};
}
template <typename E, size_t N> std::optional<E> valueOf(const Names<E> (&table)[N], const QString& s)
{
    for (const auto& n : table)
        if (s == QLatin1String(n.name))
            return n.value;
    return std::nullopt;
}
}  // namespace

QString toString(ReviewStatus s)
{
    return nameOf(kStatusNames, s);
}
std::optional<ReviewStatus> reviewStatusFromString(const QString& s)
{
    return valueOf(kStatusNames, s);
}
QString toString(Presentation p)
{
    return nameOf(kPresentationNames, p);
}
std::optional<Presentation> presentationFromString(const QString& s)
{
    return valueOf(kPresentationNames, s);
}
QString toString(SourceKind k)
{
    return nameOf(kSourceNames, k);
}
std::optional<SourceKind> sourceKindFromString(const QString& s)
{
    return valueOf(kSourceNames, s);
}

QList<ReviewStatus> allReviewStatuses()
{
    QList<ReviewStatus> out;
    for (const auto& n : kStatusNames)
        out.append(n.value);
    return out;
}

const QList<Presentation>& allPresentations()
{
    static const QList<Presentation> all{Presentation::Description, Presentation::Reference, Presentation::Spec};
    return all;
}

PresentationSet::PresentationSet(std::initializer_list<Presentation> ps)
{
    for (Presentation p : ps)
        add(p);
}

QStringList PresentationSet::names() const
{
    QStringList out;
    for (Presentation p : allPresentations())
        if (has(p))
            out.append(toString(p));
    return out;
}

PresentationSet Task::present() const
{
    PresentationSet s;
    if (!description.trimmed().isEmpty())
        s.add(Presentation::Description);
    if (!reference.trimmed().isEmpty())
        s.add(Presentation::Reference);
    if (!spec.trimmed().isEmpty())
        s.add(Presentation::Spec);
    return s;
}

QByteArray Task::contentHash() const
{
    QVariantMap m = taskToVariant(*this);
    m.remove(QStringLiteral("status"));
    return QCryptographicHash::hash(json::write(m), QCryptographicHash::Sha256).toHex();
}

bool isHiddenConfig(const QString& name)
{
    return name.startsWith(QLatin1String("hidden"));
}

Tolerance defaultTolerance(const QString& dtype)
{
    if (dtype == QLatin1String("float16") || dtype == QLatin1String("bfloat16") || dtype == QLatin1String("mixed"))
        return {1e-2, 1e-2};
    return {1e-4, 1e-4};
}

const QStringList& knownDtypes()
{
    static const QStringList d{"float32", "float16", "bfloat16", "float64", "int32", "int64", "mixed"};
    return d;
}

const QStringList& knownCategories()
{
    static const QStringList c{"elementwise",  "activation",  "reduction", "softmax", "normalization", "gemm",
                               "batched-gemm", "convolution", "pooling",   "scan",    "attention",     "fused",
                               "model",        "loss",        "indexing",  "other"};
    return c;
}

}  // namespace km
