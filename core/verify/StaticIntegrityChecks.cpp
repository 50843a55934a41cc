// The static checks for ways around the harness: using the reference, falling back to PyTorch, threads and streams.
#include "verify/StaticChecksDetail.h"

namespace km::detail {

namespace {

constexpr auto Error = Finding::Severity::Error;
constexpr auto Warning = Finding::Severity::Warning;

// Index of the first component of `resolved` that names the reference's class, or -1.
qsizetype modelIndex(const PyRef& r, const QSet<QString>& modelLike)
{
    const QStringList comps = r.resolved.split(QLatin1Char('.'));
    for (qsizetype j = 0; j < comps.size(); ++j)
        if (modelLike.contains(comps[j]))
            return j;
    return -1;
}

// "Model", its aliases (`from reference import Model as Base`, `Base = Model`) and the classes derived from them.
QSet<QString> modelLikeNames(const StaticContext& c)
{
    QSet<QString> names{QStringLiteral("Model")};
    for (auto it = c.py.aliases.constBegin(); it != c.py.aliases.constEnd(); ++it)
        if (it.value().section(QLatin1Char('.'), -1) == QLatin1String("Model"))
            names.insert(it.key());
    for (bool grew = true; grew;) {
        grew = false;
        for (const PyBlock& b : c.py.scan.blocks) {
            if (b.kind != PyBlock::Kind::Class || names.contains(b.name))
                continue;
            for (const PyRef& r : c.py.refs)
                if (r.first > b.header && r.first < b.begin && modelIndex(r, names) >= 0) {
                    names.insert(b.name);
                    grew = true;
                    break;
                }
        }
    }
    return names;
}

// super().forward / super(ModelNew, self).forward at token i; the index of "forward" or -1.
qsizetype superForward(const QList<PyToken>& t, qsizetype i)
{
    if (!isToken(t, i, QStringLiteral("super")) || !isToken(t, i + 1, QStringLiteral("(")))
        return -1;
    const qsizetype close = closingBracket(t, i + 1);
    return isToken(t, close + 1, QStringLiteral(".")) && isToken(t, close + 2, QStringLiteral("forward")) ? close + 2
                                                                                                          : -1;
}

struct Use {
    int line = 0;
    QString what;
};

// What the code in tokens [begin, end) computes with torch, if anything; `depth` bounds how far calls to the
// solution's own functions are followed (one level: a handler that calls self._fallback()).
Use torchUse(const StaticContext& c, int begin, int end, int depth)
{
    static const QSet<QString> common{
        "relu",   "gelu",   "silu",   "sigmoid", "tanh",         "softmax",    "log_softmax", "exp",
        "log",    "sqrt",   "rsqrt",  "abs",     "neg",          "pow",        "sum",         "mean",
        "max",    "min",    "amax",   "amin",    "argmax",       "argmin",     "prod",        "cumsum",
        "var",    "std",    "norm",   "matmul",  "mm",           "bmm",        "addmm",       "baddbmm",
        "einsum", "conv1d", "conv2d", "conv3d",  "linear",       "add",        "sub",         "mul",
        "div",    "clamp",  "clip",   "where",   "masked_fill",  "layer_norm", "batch_norm",  "group_norm",
        "sort",   "topk",   "gather", "scatter", "index_select", "cat",        "stack",       "tril",
        "triu",   "mv",     "dot",    "outer",   "softplus",     "hardtanh"};
    const QList<PyToken>& t = c.py.scan.tokens;
    const QSet<QString> modelLike = modelLikeNames(c);
    for (const PyRef& r : c.py.refs) {
        if (r.first < begin || r.first >= end)
            continue;
        const QString last = r.parts.last();
        const QString callee = c.py.results.value(r.parts.join(QLatin1Char('.')));
        if (r.called && r.resolved.startsWith(QLatin1String("torch.")) && !isToolingNamespace(r.resolved))
            return {r.line, QStringLiteral("calls %1").arg(shown(r))};
        const QString op = normalizedOp(last);
        if (c.isTensorMethodCall(r) && !isGlue(op) &&
            (common.contains(op) || c.refOps.contains(op) || c.forbiddenNames.contains(op)))
            return {r.line, QStringLiteral("calls the tensor method .%1()").arg(last)};
        if (r.called && isTorchClass(callee))
            return {r.line, QStringLiteral("calls %1, a %2").arg(r.parts.join(QLatin1Char('.')), callee)};
        if (modelIndex(r, modelLike) >= 0)
            return {r.line, QStringLiteral("uses the reference's %1").arg(shown(r))};
        if (depth > 0 && r.called && (r.parts.size() == 1 || (r.parts.size() == 2 && r.parts[0] == "self"))) {
            for (const PyBlock& b : c.py.scan.blocks) {
                if (b.kind != PyBlock::Kind::Def || b.name != last || (b.begin <= r.first && r.first < b.end))
                    continue;
                const Use inner = torchUse(c, b.begin, b.end, depth - 1);
                if (!inner.what.isEmpty())
                    return {r.line,
                            QStringLiteral("calls %1, which %2").arg(r.parts.join(QLatin1Char('.')), inner.what)};
            }
        }
    }
    for (qsizetype i = begin; i < end; ++i) {
        const qsizetype fwd = superForward(t, i);
        if (fwd >= 0)
            return {t[fwd].line, QStringLiteral("calls super().forward")};
    }
    return {};
}

bool onlyRaises(const QList<PyToken>& t, int begin, int end)
{
    for (int k = begin; k < end; ++k) {
        const bool start = k == begin || t[k - 1].kind == PyToken::Kind::Newline || isToken(t, k - 1, ";");
        if (start && t[k].kind != PyToken::Kind::Newline && !isToken(t, k, QStringLiteral("raise")))
            return false;
    }
    return true;
}

}  // namespace

QList<PyImport> allImports(const PyNames& py)
{
    QList<PyImport> imports = py.imports;
    static const QSet<QString> loaders{"__import__", "builtins.__import__", "importlib.import_module",
                                       "importlib.__import__"};
    const QList<PyToken>& t = py.scan.tokens;
    for (const PyRef& r : py.refs)
        if (r.called && loaders.contains(r.resolved) && r.last + 2 < t.size() &&
            t[r.last + 2].kind == PyToken::Kind::String)
            imports.append({r.line, t[r.last + 2].text, QString()});
    return imports;
}

void checkInheritsReference(StaticContext& c)
{
    const QSet<QString> modelLike = modelLikeNames(c);
    for (const PyImport& imp : allImports(c.py))
        if (modelLike.contains(imp.module.section(QLatin1Char('.'), -1)))
            c.add("static.inherits_reference", Error, imp.line,
                  QStringLiteral("the solution imports %1, the reference's class").arg(imp.module));
    for (const PyRef& r : std::as_const(c.py.refs)) {
        const qsizetype at = modelIndex(r, modelLike);
        if (at < 0 || c.inReferenceCopy(r.first))
            continue;
        const QStringList comps = r.resolved.split(QLatin1Char('.'));
        QString what;
        for (const PyBlock& b : c.py.scan.blocks)
            if (b.kind == PyBlock::Kind::Class && r.first > b.header && r.first < b.begin)
                what = QStringLiteral("class %1 derives from %2, the reference's class").arg(b.name, shown(r));
        if (!what.isEmpty())
            c.add("static.inherits_reference", Error, r.line, what);
        else if (at + 1 < comps.size() && (comps[at + 1] == "forward" || comps[at + 1] == "__call__"))
            c.add("static.inherits_reference", Error, r.line,
                  QStringLiteral("%1 calls %2, the reference's computation").arg(c.who(r.first), shown(r)));
        else
            c.add("static.inherits_reference", Error, r.line,
                  QStringLiteral("%1 %2 %3, the reference's class")
                      .arg(c.who(r.first), r.called && at + 1 == comps.size() ? "constructs" : "uses", shown(r)));
    }
    const QList<PyToken>& t = c.py.scan.tokens;
    for (qsizetype i = 0; i < t.size(); ++i) {
        const qsizetype fwd = superForward(t, i);
        if (fwd >= 0 && !c.inReferenceCopy(int(i)))
            c.add("static.inherits_reference", Error, t[fwd].line,
                  QStringLiteral("%1 calls super().forward, the parent's computation").arg(c.who(int(i))));
    }
}

// An except handler that computes with torch is a fallback (error); one that swallows the error is a warning; one
// that only raises is honest error handling and no finding. else and finally are held to the first rule only.
void checkTryFallback(StaticContext& c)
{
    const QList<PyToken>& t = c.py.scan.tokens;
    for (const PyBlock& b : c.py.scan.blocks) {
        if ((b.kind != PyBlock::Kind::Except && b.kind != PyBlock::Kind::Else && b.kind != PyBlock::Kind::Finally) ||
            c.inReferenceCopy(b.header))
            continue;
        const int tryLine = b.tryHeader >= 0 ? t[b.tryHeader].line : b.line;
        const QString clause = b.kind == PyBlock::Kind::Except ? QStringLiteral("an except handler")
                               : b.kind == PyBlock::Kind::Else ? QStringLiteral("the else clause")
                                                               : QStringLiteral("the finally clause");
        const Use use = torchUse(c, b.begin, b.end, 1);
        if (!use.what.isEmpty())
            c.add("static.try_fallback", Error, use.line,
                  QStringLiteral("%1 falls back to PyTorch in %2 of the try at line %3: it %4")
                      .arg(c.who(b.header), clause, QString::number(tryLine), use.what));
        else if (b.kind == PyBlock::Kind::Except && !onlyRaises(t, b.begin, b.end))
            c.add("static.try_fallback", Warning, b.line,
                  QStringLiteral("%1 has an except handler (try at line %2) that swallows the error instead of "
                                 "re-raising it")
                      .arg(c.who(b.header), QString::number(tryLine)));
    }
}

void checkThreadsAndStreams(StaticContext& c)
{
    static const QStringList threadBans{"threading",
                                        "_thread",
                                        "multiprocessing",
                                        "concurrent.futures",
                                        "torch.multiprocessing",
                                        "subprocess",
                                        "asyncio",
                                        "os.fork",
                                        "os.forkpty",
                                        "os.system",
                                        "os.popen",
                                        "os.posix_spawn",
                                        "os.posix_spawnp",
                                        "pty.fork"};
    auto threadBan = [](const QString& name) {
        if (name.startsWith(QLatin1String("os.spawn")))
            return true;
        for (const QString& ban : threadBans)
            if (isWithin(name, ban))
                return true;
        return false;
    };
    const QString why = QStringLiteral(": a thread or process can finish the work after the timer stops");
    QSet<QString> bannedBound;
    for (const PyImport& imp : allImports(c.py)) {
        if (!threadBan(imp.module))
            continue;
        c.add("static.threads", Error, imp.line, QStringLiteral("the solution imports %1%2").arg(imp.module, why));
        bannedBound.insert(imp.bound);
    }
    static const QSet<QString> streams{"torch.cuda.Stream",         "torch.cuda.stream",        "torch.cuda.set_stream",
                                       "torch.cuda.ExternalStream", "torch.cuda.StreamContext", "torch.Stream",
                                       "torch.cuda.streams",        "torch.get_device_module"};
    for (const PyRef& r : std::as_const(c.py.refs)) {
        if (!bannedBound.contains(r.parts.first()) && threadBan(r.resolved))
            c.add("static.threads", Error, r.line, QStringLiteral("%1 uses %2%3").arg(c.who(r.first), shown(r), why));
        for (const QString& s : streams)
            if (isWithin(r.resolved, s))
                c.add("static.streams", Error, r.line,
                      QStringLiteral("%1 uses %2: work on a stream of its own escapes the timed stream")
                          .arg(c.who(r.first), shown(r)));
    }
    static const QStringList streamPrefixes{"cudaStreamCreate", "cuStreamCreate"};
    static const QSet<QString> streamNames{"getStreamFromPool",
                                           "getStreamFromExternal",
                                           "setCurrentCUDAStream",
                                           "CUDAStreamGuard",
                                           "OptionalCUDAStreamGuard",
                                           "CUDAMultiStreamGuard",
                                           "cudaStreamPerThread",
                                           "cublasCreate",
                                           "cublasCreate_v2",
                                           "cublasLtCreate",
                                           "cublasSetStream",
                                           "cublasSetStream_v2",
                                           "cudnnCreate",
                                           "cudnnSetStream",
                                           "cusparseCreate",
                                           "cusparseSetStream",
                                           "cufftSetStream"};
    for (const CppName& n : std::as_const(c.cpp)) {
        QStringList parts = n.parts;
        if (!parts.isEmpty() && parts.first().isEmpty())
            parts.removeFirst();
        const QString last = parts.isEmpty() ? QString() : parts.last();
        if ((parts.size() >= 2 && parts[0] == "std" &&
             (parts[1] == "thread" || parts[1] == "jthread" || parts[1] == "async")) ||
            last == QLatin1String("pthread_create"))
            c.add("static.threads", Error, n.line,
                  QStringLiteral("the C++/CUDA source uses %1%2").arg(cppShown(n), why));
        bool stream = streamNames.contains(last);
        for (const QString& p : streamPrefixes)
            stream = stream || last.startsWith(p);
        if (stream)
            c.add("static.streams", Error, n.line,
                  QStringLiteral("the C++/CUDA source uses %1: a stream or library handle of its own escapes the "
                                 "timed stream (launch on at::cuda::getCurrentCUDAStream() instead)")
                      .arg(cppShown(n)));
    }
}

}  // namespace km::detail
