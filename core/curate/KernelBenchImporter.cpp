#include "curate/KernelBenchImporter.h"

#include "curate/OpCategories.h"
#include "curate/TaskFolder.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace km {

namespace {
// The folder holding level1.. : the path itself or its KernelBench/ subfolder.
QString levelsRoot(const QString& path)
{
    const QDir d(path);
    for (const QString& candidate : {d.filePath(QStringLiteral("KernelBench")), d.path()}) {
        for (int l = 1; l <= 4; ++l)
            if (QFileInfo(QDir(candidate).filePath(QStringLiteral("level%1").arg(l))).isDir())
                return candidate;
    }
    return {};
}

QString guessDtype(const QString& code)
{
    if (code.contains(QLatin1String("bfloat16")))
        return QStringLiteral("bfloat16");
    if (code.contains(QLatin1String("float16")) || code.contains(QLatin1String(".half()")))
        return QStringLiteral("float16");
    return QStringLiteral("float32");
}
}  // namespace

bool needsDownloadedWeights(const QString& reference)
{
    static const QRegularExpression re(QStringLiteral("\\bfrom_pretrained\\s*\\("));
    return re.match(reference).hasMatch();
}

bool looksLikeKernelBench(const QString& path)
{
    return !levelsRoot(path).isEmpty();
}

std::optional<KernelBenchName> parseKernelBenchFileName(const QString& fileName, int level)
{
    // Level 4 names its models as their hub does: 1_EleutherAI-gpt-neo-2p7B_bs32_seq256.py, hyphens and dots.
    static const QRegularExpression re(QStringLiteral("^(\\d+)_([A-Za-z0-9][A-Za-z0-9_.\\-]*?)_?\\.py$"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    KernelBenchName n;
    n.problem = m.captured(1).toInt();
    n.name = m.captured(2);
    QString slug = n.name.toLower();
    slug.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    slug = slug.left(60);
    while (slug.endsWith(QLatin1Char('-')))
        slug.chop(1);
    n.id = QStringLiteral("kb-l%1-%2-%3").arg(level).arg(n.problem, 3, 10, QLatin1Char('0')).arg(slug);
    n.title = n.name;
    n.title.replace(QLatin1Char('_'), QLatin1Char(' '));
    n.title = n.title.simplified();
    return n;
}

ImportBatch readKernelBench(const QString& path, const ImportOptions& options)
{
    ImportBatch batch;
    const QString root = levelsRoot(path);
    if (root.isEmpty()) {
        batch.issues.append({ImportIssue::Severity::Error, path, 0,
                             QStringLiteral("not a KernelBench checkout (no level1..level4 folders)")});
        return batch;
    }
    for (int level = 1; level <= 4; ++level) {
        const QDir dir(QDir(root).filePath(QStringLiteral("level%1").arg(level)));
        if (!dir.exists())
            continue;
        // System: broken and looping links too, so that reading them reports them.
        for (const QFileInfo& fi :
             dir.entryInfoList({QStringLiteral("*.py")}, QDir::Files | QDir::System, QDir::Name)) {
            const auto name = parseKernelBenchFileName(fi.fileName(), level);
            if (!name) {
                ++batch.skipped;
                batch.issues.append({ImportIssue::Severity::Error, fi.filePath(), 0,
                                     QStringLiteral("file name is not <number>_<Name>.py")});
                continue;
            }
            auto code = readTextFile(fi.filePath(), options.maxFileBytes);
            if (!code) {
                ++batch.skipped;
                batch.issues.append({ImportIssue::Severity::Error, fi.filePath(), 0, code.error().message});
                continue;
            }
            Task t;
            t.id = name->id;
            t.title = name->title;
            t.level = level;
            t.source = TaskSource{SourceKind::KernelBench, level, name->problem, name->name, {}, 0};
            t.reference = code.value();
            t.categories = deriveCategories(t.reference, level);
            t.tags = {QStringLiteral("kernelbench")};
            t.dtype = guessDtype(t.reference);
            t.shown = PresentationSet{Presentation::Reference};
            if (needsDownloadedWeights(t.reference))
                t.tags.append(kNeedsWeightsTag);
            QList<ImportIssue> found;
            const bool ok = reportValidation(
                t, fi.filePath(), [](const QString&) { return 0; }, &found);
            batch.issues.append(found);
            if (ok)
                batch.tasks.append(t);
            else
                ++batch.skipped;
        }
    }
    return batch;
}

}  // namespace km
