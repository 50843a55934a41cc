#include "verify/PythonNames.h"

namespace km {

namespace {

using Kind = PyToken::Kind;

bool isName(const QList<PyToken>& t, qsizetype i)
{
    return i >= 0 && i < t.size() && t[i].kind == Kind::Name && !isPythonKeyword(t[i].text);
}

bool endsStatement(const QList<PyToken>& t, qsizetype i)
{
    return i >= t.size() || t[i].kind == Kind::Newline || (isToken(t, i, QStringLiteral(";")) && t[i].depth == 0);
}

bool isAssignOp(const PyToken& tok)
{
    static const QSet<QString> ops{
        "=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<="};
    return tok.kind == Kind::Op && ops.contains(tok.text);
}

// Reads `a.b.c` from token i; returns the index of its last name (i - 1 when there is none).
qsizetype dotted(const QList<PyToken>& t, qsizetype i, QStringList* parts)
{
    if (!isName(t, i))
        return i - 1;
    parts->append(t[i].text);
    while (isToken(t, i + 1, QStringLiteral(".")) && isName(t, i + 2)) {
        i += 2;
        parts->append(t[i].text);
    }
    return i;
}

class Analyzer {
public:
    explicit Analyzer(const QString& source) { m_n.scan = scanPython(source); }

    PyNames run()
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        QList<bool> skip(t.size(), false);  // import statements, names being defined
        qsizetype lineBegin = 0;
        for (qsizetype i = 0; i < t.size(); ++i) {
            if (i > 0 && t[i - 1].kind == Kind::Newline)
                lineBegin = i;
            if (!statementStart(i, lineBegin))
                continue;
            if (isToken(t, i, QStringLiteral("import")) || isToken(t, i, QStringLiteral("from"))) {
                qsizetype e = i;
                while (!endsStatement(t, e))
                    skip[e++] = true;
                parseImport(i, e);
            } else {
                parseAlias(i);
            }
        }
        for (qsizetype i = 0; i + 1 < t.size(); ++i)
            if (isToken(t, i, QStringLiteral("def")) || isToken(t, i, QStringLiteral("class")))
                skip[i + 1] = true;
        collectRefs(skip);
        return std::move(m_n);
    }

private:
    bool statementStart(qsizetype i, qsizetype lineBegin) const
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        if (i == 0 || t[i - 1].kind == Kind::Newline || (isToken(t, i - 1, QStringLiteral(";")) && t[i].depth == 0))
            return true;
        static const QSet<QString> compound{"if",     "elif",    "else", "for", "while", "try",
                                            "except", "finally", "with", "def", "class", "async"};
        return isToken(t, i - 1, QStringLiteral(":")) && t[i - 1].depth == 0 && compound.contains(t[lineBegin].text);
    }

    void bind(const QString& name, const QString& target)
    {
        if (!name.isEmpty() && !target.isEmpty() && !m_n.aliases.contains(name))
            m_n.aliases.insert(name, target);  // the first binding wins: a later rebinding cannot hide an alias
    }

    void parseImport(qsizetype i, qsizetype end)
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        if (t[i].text == QLatin1String("import")) {
            for (qsizetype k = i + 1; k < end;) {
                QStringList parts;
                const qsizetype last = dotted(t, k, &parts);
                if (parts.isEmpty())
                    break;
                PyImport imp{t[k].line, parts.join(QLatin1Char('.')), parts.first()};
                k = last + 1;
                if (isToken(t, k, QStringLiteral("as")) && k + 1 < end) {
                    imp.bound = t[k + 1].text;
                    bind(imp.bound, imp.module);
                    k += 2;
                } else {
                    bind(imp.bound, imp.bound);
                }
                m_n.imports.append(imp);
                if (!isToken(t, k, QStringLiteral(",")))
                    break;
                ++k;
            }
            return;
        }
        QString module;  // from [dots]module import ...
        qsizetype k = i + 1;
        while (k < end && (isToken(t, k, QStringLiteral(".")) || isToken(t, k, QStringLiteral("..."))))
            module += t[k++].text;
        QStringList parts;
        k = dotted(t, k, &parts) + 1;
        module += parts.join(QLatin1Char('.'));
        if (!isToken(t, k, QStringLiteral("import")))
            return;
        for (++k; k < end; ++k) {
            if (t[k].kind == Kind::Op && t[k].text != QLatin1String("*"))
                continue;  // brackets and commas
            if (t[k].text == QLatin1String("*")) {
                m_n.starModules.append(module);
                m_n.imports.append({t[k].line, module, QStringLiteral("*")});
                continue;
            }
            PyImport imp{t[k].line, module + QLatin1Char('.') + t[k].text, t[k].text};
            if (isToken(t, k + 1, QStringLiteral("as")) && k + 2 < end) {
                imp.bound = t[k + 2].text;
                k += 2;
            }
            bind(imp.bound, imp.module);
            m_n.imports.append(imp);
        }
    }

    // `x = a.b`, `x = getattr(a, "b")` and `x = a.b(...)` at the start of a statement.
    void parseAlias(qsizetype i)
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        QStringList target;
        const qsizetype tl = dotted(t, i, &target);
        if (target.isEmpty() || !isToken(t, tl + 1, QStringLiteral("=")))
            return;
        const QString name = target.join(QLatin1Char('.'));
        QStringList rhs;
        const qsizetype rl = dotted(t, tl + 2, &rhs);
        if (rhs.isEmpty())
            return;
        if (endsStatement(t, rl + 1)) {
            bind(name, m_n.resolve(rhs));
        } else if (isToken(t, rl + 1, QStringLiteral("("))) {
            const qsizetype close = closingBracket(t, rl + 1);
            if (!endsStatement(t, close + 1))
                return;
            QStringList attr;
            if (rhs == QStringList{QStringLiteral("getattr")} && getattrTarget(rl + 1, &attr) == close)
                bind(name, m_n.resolve(attr));
            else if (!m_n.results.contains(name))
                m_n.results.insert(name, m_n.resolve(rhs));
        }
    }

    // getattr(a.b, "c") whose "(" is at `open`: the dotted name a.b.c; returns the index of its ")" or -1.
    qsizetype getattrTarget(qsizetype open, QStringList* parts) const
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        const qsizetype last = dotted(t, open + 1, parts);
        if (parts->isEmpty() || !isToken(t, last + 1, QStringLiteral(",")) || last + 2 >= t.size() ||
            t[last + 2].kind != Kind::String || t[last + 2].triple)
            return -1;
        parts->append(t[last + 2].text);
        return isToken(t, last + 3, QStringLiteral(")")) ? last + 3 : -1;
    }

    void collectRefs(const QList<bool>& skip)
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        QList<bool> target(t.size(), false);  // names left of a statement's assignment, or after del
        markTargets(&target);
        for (qsizetype i = 0; i < t.size(); ++i) {
            if (skip[i] || !isName(t, i) || (isToken(t, i - 1, QStringLiteral(".")) && isName(t, i - 2)))
                continue;
            if (t[i].depth > 0 && isToken(t, i + 1, QStringLiteral("=")))
                continue;  // a keyword argument's name
            PyRef r;
            r.first = int(i);
            r.last = int(dotted(t, i, &r.parts));
            r.onExpression = isToken(t, i - 1, QStringLiteral("."));
            r.resolved = r.onExpression ? r.parts.join(QLatin1Char('.')) : m_n.resolve(r.parts);
            r.line = t[r.last].line;
            r.called = isToken(t, r.last + 1, QStringLiteral("("));
            r.assigned = target[i];
            if (r.assigned && isToken(t, r.last + 1, QStringLiteral("[")) && r.last + 3 < t.size() &&
                t[r.last + 2].kind == Kind::String && isToken(t, r.last + 3, QStringLiteral("]")))
                r.itemKey = t[r.last + 2].text;
            m_n.refs.append(r);
            if (r.parts == QStringList{QStringLiteral("getattr")} && r.called) {
                PyRef g;
                const qsizetype close = getattrTarget(r.last + 1, &g.parts);
                if (close > 0) {
                    g.resolved = m_n.resolve(g.parts);
                    g.viaGetattr = true;
                    g.first = r.first;
                    g.last = int(close);
                    g.line = t[close - 1].line;
                    g.called = isToken(t, close + 1, QStringLiteral("("));
                    m_n.refs.append(g);
                }
            }
            i = r.last;
        }
    }

    void markTargets(QList<bool>* target) const
    {
        const QList<PyToken>& t = m_n.scan.tokens;
        qsizetype begin = 0;
        for (qsizetype i = 0; i <= t.size(); ++i) {
            if (!endsStatement(t, i))
                continue;
            qsizetype lastAssign = -1;
            for (qsizetype k = begin; k < i; ++k)
                if (t[k].depth == 0 && isAssignOp(t[k]))
                    lastAssign = k;
            const bool del = isToken(t, begin, QStringLiteral("del"));
            for (qsizetype k = begin; k < (del ? i : lastAssign); ++k)
                (*target)[k] = t[k].depth == 0;
            begin = i + 1;
        }
    }

    PyNames m_n;
};

}  // namespace

QString PyNames::resolve(const QStringList& parts) const
{
    for (qsizetype k = parts.size(); k > 0; --k) {
        const auto it = aliases.constFind(parts.first(k).join(QLatin1Char('.')));
        if (it != aliases.constEnd())
            return k < parts.size() ? QString(*it + QLatin1Char('.') + parts.mid(k).join(QLatin1Char('.'))) : *it;
    }
    return parts.join(QLatin1Char('.'));
}

QString PyNames::scopeAt(int token) const
{
    QStringList names;
    for (const PyBlock& b : scan.blocks)
        if ((b.kind == PyBlock::Kind::Class || b.kind == PyBlock::Kind::Def) && b.begin <= token && token < b.end)
            names.append(b.name);
    return names.join(QLatin1Char('.'));
}

bool PyNames::isNonTensorReceiver(const PyRef& ref) const
{
    if (ref.onExpression || ref.parts.size() < 2)
        return false;
    const QStringList receiver = ref.parts.first(ref.parts.size() - 1);
    if (receiver == QStringList{QStringLiteral("self")})
        return true;
    const QString resolved = resolve(receiver);
    const QString root = resolved.section(QLatin1Char('.'), 0, 0);
    if (root == QLatin1String("torch"))
        return true;
    for (const PyImport& imp : imports)
        if (imp.module.section(QLatin1Char('.'), 0, 0) == root)
            return true;
    // A compiled extension (`ext = load_inline(...)`, `self.ext = load(...)`) or a torch module instance.
    const QString callee = results.value(receiver.join(QLatin1Char('.')), results.value(resolved));
    const QString last = callee.section(QLatin1Char('.'), -1);
    return last == QLatin1String("load_inline") || last == QLatin1String("load") ||
           callee.startsWith(QLatin1String("torch.utils.cpp_extension.")) ||
           (callee.startsWith(QLatin1String("torch.nn.")) && !last.isEmpty() && last[0].isUpper());
}

PyNames analyzePython(const QString& source)
{
    return Analyzer(source).run();
}

QString normalizedOp(const QString& name)
{
    QString n = name;
    while (n.startsWith(QLatin1Char('_')))
        n.remove(0, 1);
    while (n.endsWith(QLatin1Char('_')))
        n.chop(1);
    if (n.endsWith(QLatin1String("_out")) && n.size() > 4)
        n.chop(4);
    return n;
}

}  // namespace km
