#include "agent/Guidance.h"

#include "agent/FrontMatter.h"
#include "model/Task.h"
#include "model/Trajectory.h"
#include "model/Verdict.h"
#include "util/Logging.h"
#include "util/Resources.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <algorithm>
#include <tuple>

namespace km {

namespace {

const QString kAny = QStringLiteral("any");

// Check ids look like "runtime.side_stream"; statuses like "COMPILE_ERROR".
bool isCheckId(const QString& s)
{
    static const QRegularExpression re(QStringLiteral("^[a-z]+\\.[a-z_]+$"));
    return re.match(s).hasMatch();
}

Status validate(const GuidanceNote& n, const FrontMatter& fm)
{
    static const QRegularExpression idRe(QStringLiteral("^[a-z0-9]+(-[a-z0-9]+)*$"));
    if (!idRe.match(n.id).hasMatch())
        return fm.errorAt(QStringLiteral("id"),
                          QStringLiteral("id \"%1\" must be lower-case words joined by '-'").arg(n.id));
    if (n.categories.isEmpty())
        return fm.errorAt(QStringLiteral("categories"), QStringLiteral("categories is empty (use [any])"));
    for (const QString& c : n.categories)
        if (c != kAny && !knownCategories().contains(c))
            return fm.errorAt(QStringLiteral("categories"), QStringLiteral("unknown category \"%1\" (known: any, %2)")
                                                                .arg(c, knownCategories().join(QStringLiteral(", "))));
    if (n.stages.isEmpty())
        return fm.errorAt(QStringLiteral("stages"), QStringLiteral("stages is empty"));
    for (const QString& s : n.stages)
        if (!GuidanceLibrary::stageNames().contains(s))
            return fm.errorAt(QStringLiteral("stages"),
                              QStringLiteral("unknown stage \"%1\" (known: %2)")
                                  .arg(s, GuidanceLibrary::stageNames().join(QStringLiteral(", "))));
    for (const QString& f : n.failures)
        if (!isCheckId(f) && !verdictStatusFromString(f))
            return fm.errorAt(QStringLiteral("failures"),
                              QStringLiteral("\"%1\" is neither a verdict status nor a check id").arg(f));
    if (n.body.isEmpty())
        return makeError(
            ErrorCode::InvalidInput,
            QStringLiteral("%1:%2: the note has no text after its front matter").arg(fm.file).arg(fm.bodyLine));
    return Status::success();
}

}  // namespace

const QStringList& GuidanceLibrary::stageNames()
{
    static const QStringList s = km::stageNames();  // the run stages (model/Trajectory), one list
    return s;
}

Result<GuidanceNote> GuidanceLibrary::parseNote(const QString& text, const QString& file)
{
    auto fm = parseFrontMatter(text, file);
    if (!fm)
        return fm.error();
    if (Status keys = fm->checkKeys({QStringLiteral("id"), QStringLiteral("title"), QStringLiteral("categories"),
                                     QStringLiteral("stages"), QStringLiteral("failures"), QStringLiteral("priority")});
        !keys)
        return keys.error();
    GuidanceNote n;
    n.file = file;
    auto id = fm->requireScalar(QStringLiteral("id"));
    if (!id)
        return id.error();
    auto title = fm->requireScalar(QStringLiteral("title"));
    if (!title)
        return title.error();
    auto categories = fm->requireList(QStringLiteral("categories"));
    if (!categories)
        return categories.error();
    auto stages = fm->requireList(QStringLiteral("stages"));
    if (!stages)
        return stages.error();
    auto failures = fm->requireList(QStringLiteral("failures"));
    if (!failures)
        return failures.error();
    auto priority = fm->requireInt(QStringLiteral("priority"), 1, 5);
    if (!priority)
        return priority.error();
    n.id = *id;
    n.title = *title;
    n.categories = *categories;
    n.stages = *stages;
    n.failures = *failures;
    n.priority = *priority;
    n.body = fm->body.trimmed();
    if (Status s = validate(n, *fm); !s)
        return s.error();
    return n;
}

Result<GuidanceLibrary> GuidanceLibrary::load(const QString& dir)
{
    auto lib = loadFolder(dir);
    if (!lib)
        qCWarning(lcAgent).noquote() << lib.error().message;
    return lib;
}

Result<GuidanceLibrary> GuidanceLibrary::loadFolder(const QString& dir)
{
    const QDir d(dir);
    if (!d.exists())
        return makeError(ErrorCode::NotFound, QStringLiteral("guidance folder %1 does not exist").arg(dir));
    GuidanceLibrary lib;
    QHash<QString, QString> fileOfId;
    QList<std::pair<GuidanceNote, QByteArray>> loaded;  // with the file's bytes, for the content hash
    const QStringList files = d.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    for (const QString& name : files) {
        if (name.compare(QLatin1String("README.md"), Qt::CaseInsensitive) == 0)
            continue;
        const QString path = d.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
        const QByteArray raw = f.readAll();
        auto note = parseNote(QString::fromUtf8(raw), path);
        if (!note)
            return note.error();
        if (fileOfId.contains(note->id))
            return makeError(
                ErrorCode::Conflict,
                QStringLiteral("%1:1: id \"%2\" is already used by %3").arg(path, note->id, fileOfId.value(note->id)));
        fileOfId.insert(note->id, path);
        loaded.append({std::move(note).value(), raw});
    }
    if (loaded.isEmpty())
        return makeError(ErrorCode::NotFound, QStringLiteral("guidance folder %1 holds no notes (*.md)").arg(dir));
    std::sort(loaded.begin(), loaded.end(), [](const auto& a, const auto& b) { return a.first.id < b.first.id; });
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const auto& [note, raw] : loaded) {
        lib.m_notes.append(note);
        hash.addData(QByteArray(note.id.toUtf8() + '\0' + raw + '\0'));
    }
    lib.m_hash = hash.result().toHex();
    return lib;
}

Result<GuidanceLibrary> GuidanceLibrary::loadDefault()
{
    return load(resourcePath(QStringLiteral("guidance")));
}

const GuidanceNote* GuidanceLibrary::find(const QString& id) const
{
    for (const GuidanceNote& n : m_notes)
        if (n.id == id)
            return &n;
    return nullptr;
}

QList<GuidanceNote> GuidanceLibrary::select(const GuidanceQuery& q, int max) const
{
    struct Ranked {
        std::tuple<int, int, int, int, int> key;  // larger is better
        const GuidanceNote* note;
    };
    QList<Ranked> ranked;
    for (const GuidanceNote& n : m_notes) {
        const bool checkHit =
            std::any_of(q.checks.cbegin(), q.checks.cend(), [&](const QString& c) { return n.failures.contains(c); });
        const bool statusHit = !q.failureStatus.isEmpty() && n.failures.contains(q.failureStatus);
        const bool specific = std::any_of(q.categories.cbegin(), q.categories.cend(),
                                          [&](const QString& c) { return n.categories.contains(c); });
        const int category = specific ? 2 : n.categories.contains(kAny) ? 1 : 0;
        const bool stage = n.stages.contains(q.stage);
        if (category == 0 || !(checkHit || statusHit || stage))
            continue;
        ranked.append({{checkHit ? 1 : 0, statusHit ? 1 : 0, category, stage ? 1 : 0, -n.priority}, &n});
    }
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
        if (a.key != b.key)
            return a.key > b.key;
        return a.note->id < b.note->id;
    });
    QList<GuidanceNote> out;
    for (const Ranked& r : ranked) {
        if (out.size() >= max)
            break;
        out.append(*r.note);
    }
    return out;
}

QString GuidanceLibrary::version() const
{
    return QStringLiteral("guidance:%1:%2").arg(m_notes.size()).arg(QString::fromLatin1(m_hash.left(12)));
}

QString formatGuidance(const QList<GuidanceNote>& notes)
{
    QStringList parts;
    for (const GuidanceNote& n : notes)
        parts << QStringLiteral("### %1\n\n%2").arg(n.title, n.body);
    return parts.join(QStringLiteral("\n\n"));
}

}  // namespace km
