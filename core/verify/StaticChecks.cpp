#include "verify/StaticChecks.h"

#include "verify/StaticChecksDetail.h"

#include <algorithm>

namespace km {

namespace detail {

bool isMethodCall(const PyNames& names, const PyRef& r)
{
    return r.called && (r.onExpression || r.parts.size() >= 2) && !names.isNonTensorReceiver(r);
}

QString shown(const PyRef& r)
{
    const QString written = r.parts.join(QLatin1Char('.'));
    if (r.viaGetattr)
        return QStringLiteral("getattr(…) for %1").arg(r.resolved);
    return written == r.resolved ? written : QStringLiteral("%1 (%2)").arg(written, r.resolved);
}

QString cppShown(const CppName& n)
{
    QStringList parts = n.parts;
    if (!parts.isEmpty() && parts.first() == QLatin1String("<>"))
        parts.removeFirst();
    return (n.member ? QStringLiteral(".") : QString()) + parts.join(QStringLiteral("::")) +
           (n.member && n.called ? QStringLiteral("()") : QString());
}

bool isTorchClass(const QString& resolved)
{
    const QString last = resolved.section(QLatin1Char('.'), -1);
    return resolved.startsWith(QLatin1String("torch.")) && !last.isEmpty() && last[0].isUpper();
}

QString cppRoot(const CppName& n)
{
    if (n.parts.size() >= 2 && !n.parts[0].isEmpty() && n.parts[0] != QLatin1String("<>"))
        return n.parts[0];
    if (n.parts.size() >= 3 && n.parts[0].isEmpty())
        return n.parts[1];
    return {};
}

void StaticContext::add(const QString& check, Finding::Severity severity, int line, const QString& what)
{
    // One finding per check and line, except where one line can hold several distinct ops.
    const bool perOp = check == QLatin1String("static.forbidden_op") || check == QLatin1String("static.reference_op");
    const QString key =
        QStringLiteral("%1|%2|%3|%4")
            .arg(check, QString::number(line), QString::number(int(severity)), perOp ? what : QString());
    if (keys.contains(key))
        return;
    keys.insert(key);
    findings.append({check, severity, line, QStringLiteral("line %1: %2").arg(QString::number(line), what)});
}

QString StaticContext::who(int token) const
{
    const QString scope = py.scopeAt(token);
    return scope.isEmpty() ? QStringLiteral("module-level code") : scope;
}

// Allocation, random data, shape, view, dtype and module plumbing, and the methods of Python's lists, dicts and
// strings: calling these is no sign of computing with the reference's op.
// cat and stack are not here: they move the whole tensor, so in a concatenation task they are the reference op.
bool isGlue(const QString& op)
{
    static const QSet<QString> glue = [] {
        const QStringList words =
            QStringLiteral(
                "empty empty_like empty_strided zeros zeros_like ones ones_like full full_like new_empty new_zeros "
                "new_ones new_full new_tensor tensor as_tensor from_numpy arange view view_as reshape reshape_as "
                "contiguous size numel dim ndimension nelement to cuda cpu float double half bfloat16 int long bool "
                "flatten unflatten permute transpose t unsqueeze squeeze expand expand_as broadcast_to stride "
                "data_ptr is_cuda is_contiguous get_device element_size storage_offset clone detach item tolist type "
                "type_as chunk split narrow select unbind movedim zero fill copy requires_grad no_grad inference_mode "
                "is_floating_point is_tensor manual_seed numpy as_strided init forward register_buffer "
                "register_parameter parameters named_parameters state_dict load_state_dict eval train device dtype "
                "shape randn rand randint randn_like rand_like randint_like randperm normal uniform append extend "
                "pop insert items keys values get update join format strip replace startswith endswith setdefault")
                .split(QLatin1Char(' '));
        return QSet<QString>(words.begin(), words.end());
    }();
    return glue.contains(op);
}

bool isToolingNamespace(const QString& resolved)
{
    for (const char* ns : {"torch.utils.", "torch.cuda.", "torch.backends.", "torch.testing.", "torch.autograd.",
                           "torch.jit.", "torch.compiler.", "torch.library.", "torch.nn.init."})
        if (resolved.startsWith(QLatin1String(ns)))
            return true;
    return false;
}

bool isWithin(const QString& resolved, const QString& ban)
{
    return resolved == ban || resolved.startsWith(ban + QLatin1Char('.'));
}

// The solution's own copy of the reference's Model class, unless names are looked up at run time (globals()[...]),
// a way to reach the copy that no static check follows.
void findReferenceCopy(StaticContext& c)
{
    for (const PyToken& t : c.py.scan.tokens)
        if (t.kind == PyToken::Kind::Name && (t.text == "globals" || t.text == "vars" || t.text == "locals"))
            return;
    for (const PyBlock& b : c.py.scan.blocks)
        if (b.kind == PyBlock::Kind::Class && b.name == QLatin1String("Model")) {
            c.copyBegin = b.begin;
            c.copyEnd = b.end;
            return;
        }
}

}  // namespace detail

namespace {

using detail::isGlue;
using detail::isToolingNamespace;
using detail::isTorchClass;
using detail::StaticContext;
constexpr auto Error = Finding::Severity::Error;
constexpr auto Warning = Finding::Severity::Warning;

bool isContainerClass(const QString& name)
{
    static const QSet<QString> containers{"Module",        "ModuleList",    "ModuleDict", "Sequential", "Parameter",
                                          "ParameterList", "ParameterDict", "Buffer",     "Identity",   "Tensor"};
    return containers.contains(name);
}

// The normalised op a call computes with, or empty: torch.X / F.X / the tensor method .X(), glue excluded.
QString computedOp(const PyNames& names, const PyRef& r)
{
    if (!r.called || r.assigned)
        return {};
    QString op;
    if (r.resolved.startsWith(QLatin1String("torch.")) && !isTorchClass(r.resolved) && !isToolingNamespace(r.resolved))
        op = normalizedOp(r.resolved.section(QLatin1Char('.'), -1));
    else if (detail::isMethodCall(names, r))
        op = normalizedOp(r.parts.last());
    return isGlue(op) ? QString() : op;
}

// One key for an op and its module class: softmax and Softmax, layer_norm and LayerNorm, conv2d and Conv2d; a
// class's 1d/2d/3d suffix also gives the key without it (BatchNorm2d and batch_norm).
QStringList matchKeys(const QString& name, bool isClass)
{
    QString key = name.toLower().remove(QLatin1Char('_'));
    QStringList keys{key};
    if (isClass && key.size() > 2 && key.endsWith(QLatin1Char('d')) &&
        QStringLiteral("123").contains(key[key.size() - 2]))
        keys.append(key.chopped(2));
    return keys;
}

// What the reference computes with: the ops its methods and functions call (Model.forward and its helpers) and the
// torch.nn modules it builds; not the parameter set-up of __init__, nor the input generators.
void collectReferenceOps(const QString& reference, StaticContext& c)
{
    const PyNames ref = analyzePython(reference);
    for (const PyRef& r : ref.refs) {
        const PyBlock* def = nullptr;  // the innermost function holding the call: blocks come outer first
        for (const PyBlock& b : ref.scan.blocks)
            if (b.kind == PyBlock::Kind::Def && b.begin <= r.first && r.first < b.end)
                def = &b;
        if (!def || def->name == QLatin1String("get_inputs") || def->name == QLatin1String("get_init_inputs"))
            continue;
        const QString last = r.resolved.section(QLatin1Char('.'), -1);
        if (r.called && isTorchClass(r.resolved) && !isContainerClass(last))
            for (const QString& key : matchKeys(last, true))
                c.refKeys.insert(key);
        const QString op = def->name == QLatin1String("__init__") ? QString() : computedOp(ref, r);
        if (!op.isEmpty()) {
            c.refOps.insert(op);
            c.refKeys.insert(matchKeys(op, false).first());
        }
    }
}

struct Forbidden {
    QString entry;  // as the task wrote it
    QString name;   // normalised op, or the class name
    bool isClass = false;
};

// Python code: torch.X, F.X, torch.Tensor.X and the tensor method .X() are one op; classes match by construction.
void checkForbiddenPython(StaticContext& c, const QList<Forbidden>& forbidden, QSet<int>* flagged)
{
    const PyNames& py = c.py;
    for (int k = 0; k < py.refs.size(); ++k) {
        const PyRef& r = py.refs[k];
        if (r.assigned || c.inReferenceCopy(r.first))
            continue;
        QStringList candidates{r.resolved};
        if (r.parts.size() == 1 && !r.onExpression && !py.aliases.contains(r.parts.first()))
            for (const QString& m : py.starModules)
                candidates.append(m + QLatin1Char('.') + r.parts.first());
        QList<Forbidden> ordered;  // an entry naming exactly what the code calls is the one to report
        for (const Forbidden& f : forbidden)
            if (f.entry == r.resolved ||
                (c.isTensorMethodCall(r) && f.entry.startsWith(QLatin1String("torch.Tensor."))))
                ordered.prepend(f);
            else
                ordered.append(f);
        for (const Forbidden& f : std::as_const(ordered)) {
            QString what;
            for (const QString& cand : std::as_const(candidates)) {
                const QString last = cand.section(QLatin1Char('.'), -1);
                if (!cand.startsWith(QLatin1String("torch.")) || isToolingNamespace(cand))
                    continue;
                const bool match = f.isClass ? isTorchClass(cand) && last == f.name
                                             : !isTorchClass(cand) && normalizedOp(last) == f.name;
                if (match) {
                    const QString verb = !r.called ? "refers to" : f.isClass ? "constructs" : "calls";
                    const QString name = cand == r.resolved
                                             ? detail::shown(r)
                                             : QStringLiteral("%1 (%2)").arg(r.parts.join(QLatin1Char('.')), cand);
                    what = QStringLiteral("%1 %2").arg(verb, name);
                    break;
                }
            }
            if (what.isEmpty() && !f.isClass && c.isTensorMethodCall(r) && normalizedOp(r.parts.last()) == f.name)
                what = QStringLiteral("calls the tensor method .%1()").arg(r.parts.last());
            if (what.isEmpty())
                continue;
            const QString note = what.contains(f.entry) ? QString() : QStringLiteral(" (%1)").arg(f.entry);
            c.add("static.forbidden_op", Error, r.line,
                  QStringLiteral("%1 %2, which this task forbids%3").arg(c.who(r.first), what, note));
            flagged->insert(k);
            break;
        }
    }
}

// C++ strings: torch::X, at::X and .X() match any forbidden op named X (the op's last name component).
void checkForbiddenCpp(StaticContext& c, const QList<Forbidden>& forbidden)
{
    for (const CppName& n : std::as_const(c.cpp)) {
        const QString root = detail::cppRoot(n);
        const bool aten = root == QLatin1String("torch") || root == QLatin1String("at") || root == QLatin1String("c10");
        if (!n.called || !(aten || n.member))
            continue;
        for (const Forbidden& f : forbidden) {
            if (f.isClass ? !(aten && n.parts.last() == f.name) : normalizedOp(n.parts.last()) != f.name)
                continue;
            c.add("static.forbidden_op", Error, n.line,
                  QStringLiteral("the C++/CUDA source calls %1, which this task forbids (%2)")
                      .arg(detail::cppShown(n), f.entry));
            break;
        }
    }
}

void checkReferenceOps(StaticContext& c, const QSet<int>& flagged)
{
    for (int k = 0; k < c.py.refs.size(); ++k) {
        const PyRef& r = c.py.refs[k];
        if (flagged.contains(k) || !r.called || r.assigned || c.inReferenceCopy(r.first))
            continue;
        const QString last = r.resolved.section(QLatin1Char('.'), -1);
        if (isTorchClass(r.resolved)) {
            const QStringList keys = matchKeys(last, true);
            if (!isContainerClass(last) &&
                std::any_of(keys.begin(), keys.end(), [&](const QString& key) { return c.refKeys.contains(key); }))
                c.add("static.reference_op", Warning, r.line,
                      QStringLiteral("%1 constructs %2, a module for an op the reference computes with: fine "
                                     "to hold parameters, not to compute with")
                          .arg(c.who(r.first), detail::shown(r)));
            continue;
        }
        const QString op = computedOp(c.py, r);
        if (op.isEmpty() || !c.refKeys.contains(matchKeys(op, false).first()))
            continue;
        const QString what = r.resolved.startsWith(QLatin1String("torch."))
                                 ? detail::shown(r)
                                 : QStringLiteral("the tensor method .%1()").arg(r.parts.last());
        c.add("static.reference_op", Warning, r.line,
              QStringLiteral("%1 calls %2, an op the reference computes with").arg(c.who(r.first), what));
    }
}

bool isWideFloat(const QString& dtype)
{
    static const QSet<QString> wide{"float32",       "float64",       "fp32",        "fp64",
                                    "f32",           "f64",           "float",       "double",
                                    "torch.float32", "torch.float64", "torch.float", "torch.double"};
    return wide.contains(dtype.trimmed().toLower());
}

void checkPrecision(StaticContext& c, const QString& dtype)
{
    static const QSet<QString> pyNames{"torch.float16",           "torch.half",
                                       "torch.bfloat16",          "torch.autocast",
                                       "torch.cuda.amp.autocast", "torch.amp.autocast",
                                       "torch.HalfTensor",        "torch.BFloat16Tensor",
                                       "torch.cuda.HalfTensor",   "torch.cuda.BFloat16Tensor"};
    const QString why = QStringLiteral("in a %1 task: a precision downgrade the tolerance may not catch").arg(dtype);
    for (const PyRef& r : std::as_const(c.py.refs)) {
        if (c.inReferenceCopy(r.first))
            continue;
        if (pyNames.contains(r.resolved) || r.resolved.startsWith(QLatin1String("torch.float8")))
            c.add("static.precision_cast", Warning, r.line,
                  QStringLiteral("%1 uses %2 %3").arg(c.who(r.first), detail::shown(r), why));
        else if (c.isTensorMethodCall(r) &&
                 (r.parts.last() == QLatin1String("half") || r.parts.last() == QLatin1String("bfloat16")))
            c.add("static.precision_cast", Warning, r.line,
                  QStringLiteral("%1 casts with .%2() %3").arg(c.who(r.first), r.parts.last(), why));
    }
    static const QSet<QString> cppTypes{"__half",        "__half2",        "half2",
                                        "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16",
                                        "nv_bfloat162",  "__nv_fp8_e4m3",  "__nv_fp8_e5m2"};
    static const QSet<QString> atenTypes{"kHalf", "kBFloat16", "kFloat16", "Half", "BFloat16"};
    static const QStringList conversions{"__float2half",   "__float2bfloat16",   "__floats2half2",
                                         "__float22half2", "__floats2bfloat162", "__float22bfloat162"};
    for (const CppName& n : std::as_const(c.cpp)) {
        const QString last = n.parts.last();
        const QString root = detail::cppRoot(n);
        bool hit =
            cppTypes.contains(last) || (atenTypes.contains(last) && (root == "at" || root == "torch" || root == "c10"));
        for (const QString& conv : conversions)
            hit = hit || last.startsWith(conv);
        if (hit)
            c.add("static.precision_cast", Warning, n.line,
                  QStringLiteral("the C++/CUDA source uses %1 %2").arg(detail::cppShown(n), why));
    }
}

}  // namespace

QList<Finding> runStaticChecks(const StaticCheckInput& in)
{
    StaticContext c;
    c.py = analyzePython(in.solution);
    c.cpp = inlineCppNames(in.solution, c.py.scan);
    detail::findReferenceCopy(c);
    collectReferenceOps(in.reference, c);
    QList<Forbidden> forbidden;
    for (const QString& entry : in.forbiddenOps) {
        const QString last = entry.trimmed().section(QLatin1Char('.'), -1);
        if (last.isEmpty())
            continue;
        const bool isClass = last[0].isUpper();
        forbidden.append({entry.trimmed(), isClass ? last : normalizedOp(last), isClass});
        if (!isClass)
            c.forbiddenNames.insert(normalizedOp(last));
    }
    QSet<int> flagged;
    checkForbiddenPython(c, forbidden, &flagged);
    checkForbiddenCpp(c, forbidden);
    checkReferenceOps(c, flagged);
    if (isWideFloat(in.dtype))
        checkPrecision(c, in.dtype.trimmed());
    detail::checkInheritsReference(c);
    detail::checkTryFallback(c);
    detail::checkThreadsAndStreams(c);
    detail::checkPatching(c);
    detail::checkCompiledCallReached(c);
    std::stable_sort(c.findings.begin(), c.findings.end(), [](const Finding& a, const Finding& b) {
        return a.line != b.line ? a.line < b.line : a.check < b.check;
    });
    return c.findings;
}

}  // namespace km
