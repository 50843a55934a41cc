// static.no_compiled_call: ModelNew.forward, and what it calls in the file, reaches none of the code the solution
// compiles. Read from the code alone: the functions and methods forward calls (by name, through self, a class of the
// file or an object it built) are followed; reaching a name that holds what load_inline/load built, a function that
// builds it, or torch.ops is a call into compiled code. A call the reading cannot follow (on a subscript, getattr with
// a computed name) counts as one, so an honest solution is never refused for how it reaches its kernel.
#include "verify/StaticChecksDetail.h"

namespace km::detail {

namespace {
using Kind = PyToken::Kind;
const QString kCheck = QStringLiteral("static.no_compiled_call");

bool isBuildCall(const PyRef& r)
{
    if (!r.called || r.onExpression)
        return false;
    const QString last = r.resolved.section(QLatin1Char('.'), -1);
    if (r.resolved.startsWith(QLatin1String("torch.utils.cpp_extension.")))
        return last == QLatin1String("load_inline") || last == QLatin1String("load");
    return r.parts == QStringList{QStringLiteral("load_inline")};  // not imported: nothing else has that name
}

bool isPrefix(const QString& holder, const QString& dotted)
{
    return dotted == holder || dotted.startsWith(holder + QLatin1Char('.'));
}

struct Def {
    QString qualified;  // "ModelNew.forward", "helper", "ReluFn.forward"
    int begin = 0;
    int end = 0;
    int line = 0;
    bool builds = false;  // holds a load_inline/load call: calling it gives (or makes) the compiled module
};

class Reach {
public:
    explicit Reach(const StaticContext& c) : m_c(c), m_t(c.py.scan.tokens)
    {
        for (const PyBlock& b : c.py.scan.blocks)
            if (b.kind == PyBlock::Kind::Def && b.begin < b.end)
                m_defs.append({c.py.scopeAt(b.begin), b.begin, b.end, b.line, false});
            else if (b.kind == PyBlock::Kind::Class)
                m_classes.insert(b.name);
        for (const PyRef& r : c.py.refs) {
            if (!isBuildCall(r) || c.inReferenceCopy(r.first))
                continue;
            m_buildLine = m_buildLine ? m_buildLine : r.line;
            for (Def& d : m_defs)
                d.builds = d.builds || (r.first >= d.begin && r.first < d.end);
            addHolder(r.first);
        }
    }

    int buildLine() const { return m_buildLine; }

    // The def forward is, or null when the file has no ModelNew.
    const Def* find(const QString& qualified) const
    {
        for (const Def& d : m_defs)
            if (d.qualified == qualified)
                return &d;
        return nullptr;
    }

    // True when forward (or, without one, any method of a class) reaches compiled code or a call not followed.
    bool reachesCompiled(const Def* forward)
    {
        QList<const Def*> queue;
        if (forward)
            queue.append(forward);
        else
            for (const Def& d : m_defs)
                if (m_classes.contains(d.qualified.section(QLatin1Char('.'), 0, 0)))
                    queue.append(&d);
        QSet<QString> seen;
        for (const Def* d : queue)
            seen.insert(d->qualified);
        for (qsizetype q = 0; q < queue.size(); ++q) {
            const Def& d = *queue[q];
            if (d.builds || unfollowable(d))
                return true;
            const QString cls =
                d.qualified.contains(QLatin1Char('.')) ? d.qualified.section(QLatin1Char('.'), 0, 0) : QString();
            for (const PyRef& r : m_c.py.refs) {
                if (r.first < d.begin || r.first >= d.end)
                    continue;
                if (isCompiled(r, cls))
                    return true;
                for (const Def* next : targets(r, cls))
                    if (!seen.contains(next->qualified)) {
                        seen.insert(next->qualified);
                        queue.append(next);
                    }
            }
        }
        return false;
    }

private:
    // The name a build call's statement binds: `ext = load_inline(`, `self.ext = load(`, `_CACHE[k] = ...`,
    // `_CACHE.setdefault(k, load_inline(...))`. A build in a def that returns it makes the def a builder (above).
    void addHolder(int token)
    {
        qsizetype s = token;
        while (s > 0 && m_t[s - 1].kind != Kind::Newline)
            --s;
        QStringList parts;
        qsizetype i = s;
        while (i < m_t.size() && m_t[i].kind == Kind::Name && !isPythonKeyword(m_t[i].text)) {
            parts.append(m_t[i].text);
            if (!isToken(m_t, i + 1, QStringLiteral(".")))
                break;
            i += 2;
        }
        if (parts.isEmpty() || i >= token)
            return;  // `return load_inline(...)`, or the call starts the statement
        m_holders.insert(parts.join(QLatin1Char('.')));
        if (parts.size() > 1 && parts.first() != QLatin1String("self"))
            m_holders.insert(parts.first());
    }

    bool held(const QString& dotted) const
    {
        for (const QString& h : m_holders)
            if (isPrefix(h, dotted))
                return true;
        return false;
    }

    bool isBuilderName(const QString& name, const QString& cls) const
    {
        for (const Def& d : m_defs)
            if (d.builds && (d.qualified == name || (!cls.isEmpty() && d.qualified == cls + QLatin1Char('.') + name)))
                return true;
        return false;
    }

    bool isCompiled(const PyRef& r, const QString& cls) const
    {
        const QString written = r.parts.join(QLatin1Char('.'));
        if (r.resolved.startsWith(QLatin1String("torch.ops.")) ||
            (!r.onExpression && (held(written) || held(r.resolved))))
            return true;
        for (qsizetype n = r.parts.size(); n >= 1; --n) {  // what a prefix holds: ext = load(...), self.ext = build()
            const QString prefix = r.parts.first(n).join(QLatin1Char('.'));
            const QString callee = m_c.py.results.value(prefix);
            const QString last = callee.section(QLatin1Char('.'), -1);
            if (!r.onExpression && !callee.isEmpty() &&
                (last == QLatin1String("load_inline") ||
                 callee.startsWith(QLatin1String("torch.utils.cpp_extension.")) || isBuilderName(callee, cls)))
                return true;
        }
        if (!r.called || r.onExpression)
            return false;
        if (r.parts.size() == 1)
            return isBuilderName(r.parts.first(), cls);
        return r.parts.size() == 2 && r.parts.first() == QLatin1String("self") && isBuilderName(r.parts[1], cls);
    }

    // A call whose callee the reading cannot name: `self.ops[k](x)`, `getattr(self, name)(x)`.
    bool unfollowable(const Def& d) const
    {
        for (int i = d.begin; i + 1 < d.end; ++i)
            if (isToken(m_t, i, QStringLiteral("]")) && isToken(m_t, i + 1, QStringLiteral("(")))
                return true;
        int getattrs = 0;
        int named = 0;
        for (const PyRef& r : m_c.py.refs)
            if (r.first >= d.begin && r.first < d.end) {
                getattrs += r.called && r.parts == QStringList{QStringLiteral("getattr")} ? 1 : 0;
                named += r.viaGetattr ? 1 : 0;
            }
        return getattrs > named;
    }

    // The defs of the file a reference may run: a function, self's method, a class's methods (constructed, its
    // apply, an instance held in self.block).
    QList<const Def*> targets(const PyRef& r, const QString& cls) const
    {
        QSet<QString> names;  // qualified defs, or "Class.*"
        if (r.onExpression)
            return {};
        const QString written = r.parts.join(QLatin1Char('.'));
        for (const QString& n : {written, r.resolved, m_c.py.results.value(written)}) {
            if (n.isEmpty())
                continue;
            names.insert(n);
            const QString root = n.section(QLatin1Char('.'), 0, 0);
            if (m_classes.contains(root))
                names.insert(root + QStringLiteral(".*"));
        }
        if (r.parts.size() >= 2 && r.parts.first() == QLatin1String("self")) {
            names.insert(cls + QLatin1Char('.') + r.parts[1]);
            names.insert(QStringLiteral("*.") + r.parts[1]);  // a method a base class of the file defines
            const QString held = m_c.py.results.value(QStringLiteral("self.") + r.parts[1]);
            if (m_classes.contains(held.section(QLatin1Char('.'), 0, 0)))
                names.insert(held.section(QLatin1Char('.'), 0, 0) + QStringLiteral(".*"));
        }
        QList<const Def*> out;
        for (const Def& d : m_defs) {
            const QString owner = d.qualified.section(QLatin1Char('.'), 0, 0);
            const QString method = d.qualified.section(QLatin1Char('.'), 1);
            if (names.contains(d.qualified) ||
                (m_classes.contains(owner) && names.contains(owner + QStringLiteral(".*"))) ||
                (m_classes.contains(owner) && !method.isEmpty() && names.contains(QStringLiteral("*.") + method)))
                out.append(&d);
        }
        return out;
    }

    const StaticContext& m_c;
    const QList<PyToken>& m_t;
    QList<Def> m_defs;
    QSet<QString> m_classes;
    QSet<QString> m_holders;
    int m_buildLine = 0;
};
}  // namespace

void checkCompiledCallReached(StaticContext& c)
{
    bool hasModelNew = false;
    for (const PyBlock& b : c.py.scan.blocks)
        hasModelNew = hasModelNew || (b.kind == PyBlock::Kind::Class && b.name == QLatin1String("ModelNew"));
    if (!hasModelNew)
        return;  // nothing to run: the harness reports it
    Reach reach(c);
    const Def* forward = reach.find(QStringLiteral("ModelNew.forward"));
    if (reach.reachesCompiled(forward))
        return;
    int line = forward ? forward->line : 0;
    if (!line)
        for (const PyBlock& b : c.py.scan.blocks)
            if (b.kind == PyBlock::Kind::Class && b.name == QLatin1String("ModelNew"))
                line = b.line;
    if (!reach.buildLine())
        c.add(kCheck, Finding::Severity::Error, line,
              QStringLiteral("ModelNew.forward computes without compiled code of its own: the solution builds none "
                             "(no load_inline or load call)"));
    else
        c.add(kCheck, Finding::Severity::Error, line,
              QStringLiteral("ModelNew.forward never calls the code the solution compiles (line %1 builds it), nor "
                             "does anything it calls")
                  .arg(reach.buildLine()));
}

}  // namespace km::detail
