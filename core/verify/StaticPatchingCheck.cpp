// static.patching: the solution reaching into what the harness relies on (modules it uses, the interpreter, the
// harness itself) or running code no static check can read.
#include "verify/StaticChecksDetail.h"

namespace km::detail {

namespace {

constexpr auto Error = Finding::Severity::Error;
constexpr auto Warning = Finding::Severity::Warning;

bool isPatchRoot(const QString& resolved)
{
    static const QSet<QString> roots{"torch", "time", "builtins", "sys", "gc", "os"};
    return roots.contains(resolved.section(QLatin1Char('.'), 0, 0));
}

// Environment variables a solution may set for its own build: they steer load_inline, not the measurement.
bool isBuildVariable(const QString& key)
{
    static const QSet<QString> keys{
        "TORCH_CUDA_ARCH_LIST", "MAX_JOBS",          "TORCH_EXTENSIONS_DIR", "CUDA_HOME", "CUDA_PATH", "CXX", "CC",
        "CUDAHOSTCXX",          "NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS"};
    return keys.contains(key);
}

// Modules whose import is a finding by itself, and names inside allowed modules that are.
const QStringList& bannedModules()
{
    static const QStringList m{"builtins", "ctypes", "_ctypes", "cffi", "inspect", "kmosaic_harness"};
    return m;
}
const QStringList& bannedNames()
{
    static const QStringList n{"sys.modules",      "sys._getframe",   "sys.settrace",        "sys.setprofile",
                               "sys.meta_path",    "sys.path_hooks",  "sys._current_frames", "gc.get_objects",
                               "gc.get_referrers", "gc.get_referents"};
    return n;
}

bool isBanned(const QString& resolved)
{
    for (const QStringList* list : {&bannedModules(), &bannedNames()})
        for (const QString& ban : *list)
            if (isWithin(resolved, ban))
                return true;
    return false;
}

void checkEnvironmentWrite(StaticContext& c, const PyRef& r, const QString& key)
{
    if (isBuildVariable(key))
        return;
    const QString what = key.isEmpty() ? QStringLiteral("environment variables through %1").arg(r.resolved)
                                       : QStringLiteral("the environment variable %1").arg(key);
    c.add("static.patching", Warning, r.line,
          QStringLiteral("%1 sets %2, which is not a build setting").arg(c.who(r.first), what));
}

}  // namespace

void checkPatching(StaticContext& c)
{
    const QList<PyToken>& t = c.py.scan.tokens;
    const QString why = QStringLiteral(": the solution may not change what the harness relies on");
    QSet<QString> bannedBound;
    for (const PyImport& imp : allImports(c.py)) {
        if (!isBanned(imp.module))
            continue;
        c.add("static.patching", Error, imp.line, QStringLiteral("the solution imports %1%2").arg(imp.module, why));
        bannedBound.insert(imp.bound);
    }
    static const QSet<QString> attrSetters{"setattr",
                                           "delattr",
                                           "builtins.setattr",
                                           "builtins.delattr",
                                           "object.__setattr__",
                                           "object.__delattr__",
                                           "type.__setattr__",
                                           "type.__delattr__"};
    static const QSet<QString> runners{"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"};
    static const QSet<QString> loaders{"__import__", "builtins.__import__", "importlib.import_module",
                                       "importlib.__import__"};
    QSet<QString> defined;  // names the solution defines: its own compile() is not the builtin
    for (const PyBlock& b : c.py.scan.blocks)
        defined.insert(b.name);
    for (const PyRef& r : std::as_const(c.py.refs)) {
        const bool subscript = isToken(t, r.last + 1, QStringLiteral("["));
        if (r.assigned && r.resolved == QLatin1String("os.environ") && subscript) {
            checkEnvironmentWrite(c, r, r.itemKey);
        } else if (r.assigned && (r.parts.size() >= 2 || subscript) && isPatchRoot(r.resolved)) {
            c.add("static.patching", Error, r.line,
                  QStringLiteral("%1 %2 %3%4")
                      .arg(c.who(r.first), isToken(t, r.first - 1, "del") ? "deletes" : "assigns to", shown(r), why));
        }
        if (r.called &&
            (r.resolved == QLatin1String("os.environ.setdefault") || r.resolved == QLatin1String("os.putenv") ||
             r.resolved == QLatin1String("os.environ.update"))) {
            const bool literal = r.last + 2 < t.size() && t[r.last + 2].kind == PyToken::Kind::String;
            checkEnvironmentWrite(c, r, literal && !r.resolved.endsWith("update") ? t[r.last + 2].text : QString());
        }
        if (r.called && attrSetters.contains(r.resolved)) {
            QStringList target;
            for (qsizetype k = r.last + 2; k < t.size() && t[k].kind == PyToken::Kind::Name; k += 2) {
                target.append(t[k].text);
                if (!isToken(t, k + 1, QStringLiteral(".")))
                    break;
            }
            const QString resolved = c.py.resolve(target);
            if (!target.isEmpty() && isPatchRoot(resolved))
                c.add("static.patching", Error, r.line,
                      QStringLiteral("%1 calls %2 on %3%4").arg(c.who(r.first), r.parts.join('.'), resolved, why));
        }
        if (!bannedBound.contains(r.parts.first()) && !r.onExpression && isBanned(r.resolved))
            c.add("static.patching", Error, r.line, QStringLiteral("%1 uses %2%3").arg(c.who(r.first), shown(r), why));
        if (isPatchRoot(r.resolved) && r.parts.contains(QLatin1String("__dict__")))
            c.add("static.patching", Error, r.line,
                  QStringLiteral("%1 reaches into %2%3").arg(c.who(r.first), shown(r), why));
        if (r.called && r.parts.size() == 1 && runners.contains(r.resolved) && !defined.contains(r.resolved))
            c.add("static.patching", Error, r.line,
                  QStringLiteral("%1 calls %2: code built at run time is out of reach of the static checks")
                      .arg(c.who(r.first), r.resolved));
        if (r.called && loaders.contains(r.resolved) &&
            !(r.last + 2 < t.size() && t[r.last + 2].kind == PyToken::Kind::String))
            c.add("static.patching", Error, r.line,
                  QStringLiteral("%1 imports a module whose name is computed at run time").arg(c.who(r.first)));
    }
    // Interpreter internals through which any object, the harness's included, can be reached or rewritten.
    static const QSet<QString> internals{"__builtins__",   "__globals__", "__code__",    "__closure__",
                                         "__subclasses__", "__setattr__", "__delattr__", "f_globals",
                                         "f_locals",       "f_back",      "f_builtins",  "kmosaic_harness"};
    for (qsizetype i = 0; i < t.size(); ++i) {
        if (t[i].kind == PyToken::Kind::Name && internals.contains(t[i].text) && !isToken(t, i - 1, "def"))
            c.add("static.patching", Error, t[i].line,
                  QStringLiteral("%1 uses %2%3").arg(c.who(int(i)), t[i].text, why));
        if (t[i].kind != PyToken::Kind::String)
            continue;
        const qsizetype at = t[i].text.indexOf(QLatin1String("kmosaic_harness"));
        if (at >= 0)
            c.add("static.patching", Error, t[i].line + int(t[i].text.left(at).count(QLatin1Char('\n'))),
                  QStringLiteral("a string names kmosaic_harness, the harness's own package%1").arg(why));
    }
}

}  // namespace km::detail
