#pragma once
// Task: one CUDA task in all its presentations, as an immutable value crossing every layer.

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <optional>

namespace km {

enum class ReviewStatus { Draft, InReview, Accepted, Rejected, NeedsChanges };
enum class Presentation { Description = 1, Reference = 2, Spec = 4 };
enum class SourceKind { Bundled, KernelBench, File };

QString toString(ReviewStatus s);
std::optional<ReviewStatus> reviewStatusFromString(const QString& s);
QString toString(Presentation p);
std::optional<Presentation> presentationFromString(const QString& s);
QString toString(SourceKind k);
std::optional<SourceKind> sourceKindFromString(const QString& s);
QList<ReviewStatus> allReviewStatuses();
const QList<Presentation>& allPresentations();

// The set of presentations a task has or shows, as bit flags over Presentation.
class PresentationSet {
public:
    PresentationSet() = default;
    explicit PresentationSet(int bits) : m_bits(bits & 7) {}
    PresentationSet(std::initializer_list<Presentation> ps);
    bool has(Presentation p) const { return (m_bits & int(p)) != 0; }
    void add(Presentation p) { m_bits |= int(p); }
    bool isEmpty() const { return m_bits == 0; }
    bool isSubsetOf(PresentationSet o) const { return (m_bits & ~o.m_bits) == 0; }
    int bits() const { return m_bits; }
    QStringList names() const;  // in canonical order: description, reference, spec
    bool operator==(const PresentationSet&) const = default;

private:
    int m_bits = 0;
};

struct TaskSource {
    SourceKind kind = SourceKind::Bundled;
    int kbLevel = 0;    // KernelBench
    int kbProblem = 0;  // KernelBench
    QString kbName;     // KernelBench
    QString path;       // File: where it was imported from
    int line = 0;       // File: line in a JSONL file
    bool operator==(const TaskSource&) const = default;
};

// A named input configuration: values overriding module-level constants of the reference program.
// Values are qint64, double, bool, QString or QVariantList of those; the type is kept exactly.
struct TaskConfig {
    QString name;
    QVariantMap values;  // constant name -> value
    bool operator==(const TaskConfig&) const = default;
};

struct Tolerance {
    double atol = 0;
    double rtol = 0;
    bool operator==(const Tolerance&) const = default;
};

struct Task {
    QString id;
    QString title;
    int level = 1;  // 1 single op, 2 fused sequence, 3 model, 4 KernelBench level 4
    TaskSource source;
    QStringList categories;
    QStringList tags;
    QString dtype = QStringLiteral("float32");
    PresentationSet shown;
    ReviewStatus status = ReviewStatus::Draft;
    QStringList forbiddenOps;
    std::optional<Tolerance> tolerance;
    QString flopsFormula;
    QString bytesFormula;
    QList<TaskConfig> configs;
    QString description;  // Markdown
    QString reference;    // Python, KernelBench contract
    QString spec;         // Markdown with LaTeX math

    PresentationSet present() const;  // which presentations have content
    // Hash of everything a file carries except the review status: re-import compares it.
    QByteArray contentHash() const;
    bool operator==(const Task&) const = default;
};

// Default tolerance of a dtype, used when the task sets none (KernelBench's current defaults).
Tolerance defaultTolerance(const QString& dtype);
// A configuration whose name starts with "hidden" is verified but never shown to the model: no prompt lists it and
// feedback does not name it or its values ("hidden-small" also runs on the CPU, as "small*" does).
bool isHiddenConfig(const QString& name);
const QStringList& knownDtypes();
const QStringList& knownCategories();

}  // namespace km
