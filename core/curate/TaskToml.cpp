#include "curate/TaskToml.h"

#include "model/TaskVariant.h"
#include "util/Json.h"

#include <QRegularExpression>
#include <cmath>
#include <sstream>
#define TOML_HEADER_ONLY 1  // NOLINT: configure toml++ before its header
#include <toml++/toml.h>

namespace km {

int TomlDocument::lineOf(const QString& keyPath) const
{
    QString p = keyPath;
    while (!p.isEmpty()) {
        if (const auto it = lines.constFind(p); it != lines.cend())
            return it.value();
        const qsizetype cut = std::max(p.lastIndexOf(QLatin1Char('.')), p.lastIndexOf(QLatin1Char('[')));
        p = cut > 0 ? p.left(cut) : QString();
    }
    return 0;
}

namespace {

// Converts every value it can; each value it cannot (inf, nan, dates) is an error, and conversion goes on.
struct Converter {
    TomlDocument* doc = nullptr;
    QList<TomlError> errors;

    int lineOf(const toml::node& n) { return int(n.source().begin.line); }

    std::optional<QVariant> convert(const toml::node& n, const QString& path)
    {
        doc->lines.insert(path, lineOf(n));
        if (auto t = n.as_table()) {
            QVariantMap m;
            for (auto&& [k, v] : *t) {
                const QString key = QString::fromUtf8(k.str().data(), qsizetype(k.str().size()));
                if (auto cv = convert(v, path.isEmpty() ? key : path + QLatin1Char('.') + key))
                    m.insert(key, *cv);
            }
            return m;
        }
        if (auto a = n.as_array()) {
            QVariantList l;
            for (size_t i = 0; i < a->size(); ++i) {
                auto cv = convert(*a->get(i), QStringLiteral("%1[%2]").arg(path).arg(i));
                l.append(cv.value_or(QVariant()));
            }
            return l;
        }
        if (auto s = n.as_string())
            return QVariant(QString::fromStdString(s->get()));
        if (auto i = n.as_integer())
            return QVariant(qint64(i->get()));
        if (auto f = n.as_floating_point()) {
            if (!std::isfinite(f->get())) {
                fail(n, QStringLiteral("'%1': inf and nan are not allowed").arg(path));
                return std::nullopt;
            }
            return QVariant(f->get());
        }
        if (auto b = n.as_boolean())
            return QVariant(b->get());
        fail(n, QStringLiteral("'%1': dates and times are not used in task files").arg(path));
        return std::nullopt;
    }

    void fail(const toml::node& n, const QString& reason) { errors.append({lineOf(n), reason}); }
};

QString quoted(const QString& s)
{
    QString out = QStringLiteral("\"");
    for (const QChar ch : s) {
        const char16_t c = ch.unicode();
        if (c == '"')
            out += QStringLiteral("\\\"");
        else if (c == '\\')
            out += QStringLiteral("\\\\");
        else if (c == '\n')
            out += QStringLiteral("\\n");
        else if (c == '\t')
            out += QStringLiteral("\\t");
        else if (c == '\r')
            out += QStringLiteral("\\r");
        else if (c < 0x20 || c == 0x7f)
            out += QStringLiteral("\\u%1").arg(uint(c), 4, 16, QLatin1Char('0'));
        else
            out += ch;
    }
    return out + QLatin1Char('"');
}

QString key(const QString& k)
{
    static const QRegularExpression bare(QStringLiteral("^[A-Za-z0-9_-]+$"));
    return bare.match(k).hasMatch() ? k : quoted(k);
}

QString value(const QVariant& v)
{
    switch (v.typeId()) {
    case QMetaType::Bool: return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QMetaType::Int:
    case QMetaType::LongLong: return QString::number(v.toLongLong());
    case QMetaType::Double: return QString::fromLatin1(json::formatDouble(v.toDouble()));
    case QMetaType::QVariantList: {
        QStringList parts;
        for (const QVariant& e : v.toList())
            parts.append(value(e));
        return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    default: return quoted(v.toString());
    }
}

QString stringArray(const QStringList& l)
{
    QStringList q;
    for (const QString& s : l)
        q.append(quoted(s));
    return QLatin1Char('[') + q.join(QStringLiteral(", ")) + QLatin1Char(']');
}

}  // namespace

std::optional<TomlDocument> parseToml(const QByteArray& text, QList<TomlError>* errors)
{
    TomlDocument doc;
    try {
        const toml::table table = toml::parse(std::string_view(text.constData(), size_t(text.size())));
        Converter c{&doc, {}};
        auto root = c.convert(table, QString());
        if (!c.errors.isEmpty() || !root) {
            if (errors)
                *errors = c.errors;
            return std::nullopt;
        }
        doc.root = root->toMap();
        return doc;
    } catch (const toml::parse_error& e) {  // a syntax error ends the parse: toml++ reports the first one
        if (errors)
            *errors = {{int(e.source().begin.line),
                        QString::fromUtf8(e.description().data(), qsizetype(e.description().size()))}};
        return std::nullopt;
    }
}

std::optional<TomlDocument> parseToml(const QByteArray& text, TomlError* error)
{
    QList<TomlError> errors;
    auto doc = parseToml(text, &errors);
    if (!doc && error && !errors.isEmpty())
        *error = errors.first();
    return doc;
}

QByteArray writeTaskToml(const Task& t)
{
    QString out;
    auto line = [&](const QString& k, const QString& v) {
        out += key(k) + QStringLiteral(" = ") + v + QLatin1Char('\n');
    };
    line(QStringLiteral("id"), quoted(t.id));
    line(QStringLiteral("title"), quoted(t.title));
    line(QStringLiteral("level"), QString::number(t.level));
    line(QStringLiteral("categories"), stringArray(t.categories));
    line(QStringLiteral("tags"), stringArray(t.tags));
    line(QStringLiteral("dtype"), quoted(t.dtype));
    line(QStringLiteral("shown"), stringArray(t.shown.names()));
    line(QStringLiteral("status"), quoted(toString(t.status)));
    if (!t.forbiddenOps.isEmpty())
        line(QStringLiteral("forbidden_ops"), stringArray(t.forbiddenOps));

    out += QStringLiteral("\n[source]\n");
    const QVariantMap source = taskToVariant(t, false).value(QStringLiteral("source")).toMap();
    line(QStringLiteral("kind"), quoted(source.value(QStringLiteral("kind")).toString()));
    for (const char* k : {"level", "problem", "name", "path", "line"})
        if (source.contains(QLatin1String(k)))
            line(QLatin1String(k), value(source.value(QLatin1String(k))));

    if (t.tolerance) {
        out += QStringLiteral("\n[tolerance]\n");
        line(QStringLiteral("atol"), value(t.tolerance->atol));
        line(QStringLiteral("rtol"), value(t.tolerance->rtol));
    }
    if (!t.flopsFormula.isEmpty() || !t.bytesFormula.isEmpty()) {
        out += QStringLiteral("\n[formulas]\n");
        if (!t.flopsFormula.isEmpty())
            line(QStringLiteral("flops"), quoted(t.flopsFormula));
        if (!t.bytesFormula.isEmpty())
            line(QStringLiteral("bytes"), quoted(t.bytesFormula));
    }
    for (const TaskConfig& c : t.configs) {
        out += QStringLiteral("\n[[configs]]\n");
        line(QStringLiteral("name"), quoted(c.name));
        for (auto it = c.values.cbegin(); it != c.values.cend(); ++it)
            line(it.key(), value(it.value()));
    }
    return out.toUtf8();
}

}  // namespace km
