#include "agent/PromptTemplate.h"

#include "agent/FrontMatter.h"
#include "util/Logging.h"
#include "util/Resources.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <vector>

namespace km {

struct PromptTemplate::Node {
    enum class Kind { Text, Value, Section, Inverted };
    Kind kind = Kind::Text;
    QString text;  // Text: the text; otherwise the placeholder's name
    std::vector<Node> children;
};

namespace {

using Node = PromptTemplate::Node;

Error at(const QString& file, int line, const QString& message)
{
    return makeError(ErrorCode::InvalidInput, QStringLiteral("%1:%2: %3").arg(file, QString::number(line), message));
}

struct Parsed {
    std::vector<Node> nodes;
    QHash<QString, int> firstUse;  // name -> line
};

// The body, line by line: standalone section lines open and close children; other lines are text and values.
Result<Parsed> parseBody(const QString& body, int firstLine, const QString& file)
{
    static const QRegularExpression sectionLine(
        QStringLiteral("^\\s*\\{\\{([#^/])\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\}\\}\\s*$"));
    static const QRegularExpression tag(QStringLiteral("\\{\\{\\s*([#^/]?)\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\}\\}"));
    Parsed p;
    struct Open {
        Node node;
        int line;
    };
    std::vector<Open> stack;
    auto current = [&]() -> std::vector<Node>& {
        return stack.empty() ? p.nodes : stack.back().node.children;
    };
    auto use = [&](const QString& name, int line) {
        if (!p.firstUse.contains(name))
            p.firstUse.insert(name, line);
    };
    const QStringList lines = body.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const int lineNo = firstLine + i;
        const QString& line = lines.at(i);
        const QString eol = i + 1 < lines.size() ? QStringLiteral("\n") : QString();
        if (const auto m = sectionLine.match(line); m.hasMatch()) {
            const QString name = m.captured(2);
            use(name, lineNo);
            if (m.captured(1) != QLatin1String("/")) {
                Node n{m.captured(1) == QLatin1String("#") ? Node::Kind::Section : Node::Kind::Inverted, name, {}};
                stack.push_back({std::move(n), lineNo});
                continue;
            }
            if (stack.empty() || stack.back().node.text != name)
                return at(file, lineNo,
                          stack.empty() ? QStringLiteral("{{/%1}} closes no open section").arg(name)
                                        : QStringLiteral("{{/%1}} closes section \"%2\" opened at line %3")
                                              .arg(name, stack.back().node.text)
                                              .arg(stack.back().line));
            Node done = std::move(stack.back().node);
            stack.pop_back();
            current().push_back(std::move(done));
            continue;
        }
        qsizetype pos = 0;
        for (auto it = tag.globalMatch(line); it.hasNext();) {
            const auto m = it.next();
            if (!m.captured(1).isEmpty())
                return at(file, lineNo,
                          QStringLiteral("section tag {{%1%2}} must stand on a line of its own")
                              .arg(m.captured(1), m.captured(2)));
            if (m.capturedStart() > pos)
                current().push_back({Node::Kind::Text, line.mid(pos, m.capturedStart() - pos), {}});
            current().push_back({Node::Kind::Value, m.captured(2), {}});
            use(m.captured(2), lineNo);
            pos = m.capturedEnd();
        }
        const QString rest = line.mid(pos) + eol;
        if (QString(line).remove(tag).contains(QLatin1String("{{")))
            return at(file, lineNo, QStringLiteral("malformed placeholder (write {{name}} with letters, digits, '_')"));
        if (!rest.isEmpty())
            current().push_back({Node::Kind::Text, rest, {}});
    }
    if (!stack.empty())
        return at(file, stack.back().line,
                  QStringLiteral("section \"%1\" is never closed").arg(stack.back().node.text));
    return p;
}

QString chopNewlines(QString s)
{
    while (s.endsWith(QLatin1Char('\n')) || s.endsWith(QLatin1Char('\r')))
        s.chop(1);
    return s;
}

void renderNodes(const std::vector<Node>& nodes, const QHash<QString, QString>& values, QString& out)
{
    for (const Node& n : nodes) {
        switch (n.kind) {
        case Node::Kind::Text: out += n.text; break;
        case Node::Kind::Value: out += chopNewlines(values.value(n.text)); break;
        case Node::Kind::Section:
        case Node::Kind::Inverted: {
            const bool present = !values.value(n.text).trimmed().isEmpty();
            if (present == (n.kind == Node::Kind::Section))
                renderNodes(n.children, values, out);
            break;
        }
        }
    }
}

}  // namespace

// load() without the log line, for PromptLibrary, which logs its own failure once.
static Result<PromptTemplate> readTemplate(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::Io, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    return PromptTemplate::parse(QString::fromUtf8(f.readAll()), QFileInfo(path).completeBaseName(), path);
}

Result<PromptTemplate> PromptTemplate::parse(const QString& text, const QString& name, const QString& file)
{
    const QString where = file.isEmpty() ? name : file;
    auto fm = parseFrontMatter(text, where);
    if (!fm)
        return fm.error();
    if (Status keys = fm->checkKeys({QStringLiteral("version"), QStringLiteral("required"), QStringLiteral("optional"),
                                     QStringLiteral("description")});
        !keys)
        return keys.error();
    auto version = fm->requireInt(QStringLiteral("version"), 1, 1000000);
    if (!version)
        return version.error();
    PromptTemplate t;
    t.m_name = name;
    t.m_file = where;
    t.m_version = *version;
    t.m_source = text;
    for (const QString& key : {QStringLiteral("required"), QStringLiteral("optional")}) {
        if (!fm->has(key))
            continue;
        auto names = fm->requireList(key);
        if (!names)
            return names.error();
        (key == QLatin1String("required") ? t.m_required : t.m_optional) = *names;
    }
    for (const QString& n : t.m_required)
        if (t.m_optional.contains(n))
            return fm->errorAt(QStringLiteral("optional"),
                               QStringLiteral("\"%1\" is both required and optional").arg(n));

    // Leading blank lines of the body are dropped (line numbers follow), trailing white space too.
    QString body = fm->body;
    int firstLine = fm->bodyLine;
    while (body.startsWith(QLatin1Char('\n'))) {
        body.remove(0, 1);
        ++firstLine;
    }
    auto parsed = parseBody(body.trimmed(), firstLine, where);
    if (!parsed)
        return parsed.error();
    QStringList undeclared;
    for (auto it = parsed->firstUse.cbegin(); it != parsed->firstUse.cend(); ++it)
        if (!t.m_required.contains(it.key()) && !t.m_optional.contains(it.key()))
            undeclared << QStringLiteral("%1 (line %2)").arg(it.key()).arg(it.value());
    if (!undeclared.isEmpty()) {
        undeclared.sort();
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1: unknown placeholder(s) %2: declare them under required or optional")
                             .arg(where, undeclared.join(QStringLiteral(", "))));
    }
    for (const QString& n : t.m_required + t.m_optional)
        if (!parsed->firstUse.contains(n))
            return fm->errorAt(t.m_required.contains(n) ? QStringLiteral("required") : QStringLiteral("optional"),
                               QStringLiteral("placeholder \"%1\" is declared but the body never uses it").arg(n));
    t.m_body = std::make_shared<const std::vector<Node>>(std::move(parsed.value().nodes));
    return t;
}

Result<PromptTemplate> PromptTemplate::load(const QString& path)
{
    auto t = readTemplate(path);
    if (!t)
        qCWarning(lcAgent).noquote() << t.error().message;
    return t;
}

Result<QString> PromptTemplate::render(const QHash<QString, QString>& values) const
{
    QStringList missing;
    for (const QString& n : m_required)
        if (values.value(n).trimmed().isEmpty())
            missing << n;
    if (!missing.isEmpty())
        return makeError(
            ErrorCode::InvalidInput,
            QStringLiteral("prompt \"%1\" needs a value for %2").arg(m_name, missing.join(QStringLiteral(", "))));
    QString out;
    if (m_body)
        renderNodes(*m_body, values, out);
    return out;
}

Result<QString> PromptTemplate::render(const QVariantMap& values) const
{
    QHash<QString, QString> text;
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        text.insert(it.key(), it.value().typeId() == QMetaType::QStringList
                                  ? it.value().toStringList().join(QLatin1Char('\n'))
                                  : it.value().toString());
    return render(text);
}

const QStringList& PromptLibrary::standardNames()
{
    static const QStringList n{QStringLiteral("system"), QStringLiteral("implement"), QStringLiteral("repair"),
                               QStringLiteral("optimise"), QStringLiteral("no_code")};
    return n;
}

Result<PromptLibrary> PromptLibrary::load(const QString& dir)
{
    auto lib = loadFolder(dir);
    if (!lib)
        qCWarning(lcAgent).noquote() << lib.error().message;
    return lib;
}

Result<PromptLibrary> PromptLibrary::loadFolder(const QString& dir)
{
    const QDir d(dir);
    if (!d.exists())
        return makeError(ErrorCode::NotFound, QStringLiteral("prompt folder %1 does not exist").arg(dir));
    PromptLibrary lib;
    for (const QString& file : d.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name)) {
        if (file.compare(QLatin1String("README.md"), Qt::CaseInsensitive) == 0)
            continue;
        auto t = readTemplate(d.filePath(file));
        if (!t)
            return t.error();
        lib.m_templates.append(std::move(t).value());
    }
    std::sort(lib.m_templates.begin(), lib.m_templates.end(),
              [](const PromptTemplate& a, const PromptTemplate& b) { return a.name() < b.name(); });
    for (const QString& n : standardNames())
        if (!lib.find(n))
            return makeError(ErrorCode::NotFound, QStringLiteral("prompt folder %1 lacks %2.md").arg(dir, n));
    return lib;
}

Result<PromptLibrary> PromptLibrary::loadDefault()
{
    return load(resourcePath(QStringLiteral("prompts")));
}

const PromptTemplate* PromptLibrary::find(const QString& name) const
{
    for (const PromptTemplate& t : m_templates)
        if (t.name() == name)
            return &t;
    return nullptr;
}

Result<QString> PromptLibrary::render(const QString& name, const QHash<QString, QString>& values) const
{
    const PromptTemplate* t = find(name);
    if (!t)
        return makeError(ErrorCode::NotFound, QStringLiteral("no prompt template named \"%1\"").arg(name));
    return t->render(values);
}

QStringList PromptLibrary::names() const
{
    QStringList out;
    for (const PromptTemplate& t : m_templates)
        out << t.name();
    return out;
}

QList<PromptVersion> PromptLibrary::versions() const
{
    QList<PromptVersion> out;
    for (const PromptTemplate& t : m_templates)
        out.append({t.name(), t.version()});
    return out;
}

QString PromptLibrary::versionString() const
{
    QStringList parts;
    for (const PromptTemplate& t : m_templates)
        parts << QStringLiteral("%1@%2").arg(t.name()).arg(t.version());
    return parts.join(QLatin1Char(' '));
}

QByteArray PromptLibrary::contentHash() const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const PromptTemplate& t : m_templates)
        hash.addData(QByteArray(t.name().toUtf8() + '\0' + t.source().toUtf8() + '\0'));
    return hash.result().toHex();
}

}  // namespace km
