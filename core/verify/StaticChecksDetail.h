#pragma once
// Shared by the two halves of the static checks (StaticChecks.cpp: what the solution computes;
// StaticIntegrityChecks.cpp: ways around the harness). Internal to core/verify.

#include "verify/CppNames.h"
#include "verify/PythonNames.h"
#include "verify/StaticChecks.h"

namespace km::detail {

// A call `x.name(...)` on something that may be a tensor (not a module, `self` or a compiled extension).
bool isMethodCall(const PyNames& names, const PyRef& r);
QString shown(const PyRef& r);  // "F.softmax (torch.nn.functional.softmax)", or the name as written when the same
QString cppShown(const CppName& n);
bool isTorchClass(const QString& resolved);        // torch.nn.Conv2d, torch.nn.modules.conv.Conv2d (not torch.float16)
QString cppRoot(const CppName& n);                 // "at" for at::softmax and ::at::softmax; empty when unqualified
bool isToolingNamespace(const QString& resolved);  // torch.cuda.*, torch.utils.*: infrastructure, not operators
bool isGlue(const QString& op);  // allocation, random data, views, dtype moves, plumbing, list/dict/str methods
// True when `resolved` is `ban` or inside it (threading.Thread is inside threading).
bool isWithin(const QString& resolved, const QString& ban);
// The imports of the solution, with __import__("m") and importlib.import_module("m") read as imports of m.
QList<PyImport> allImports(const PyNames& py);

struct StaticContext {
    PyNames py;                    // the solution
    QList<CppName> cpp;            // names of its C++/CUDA strings
    QSet<QString> refOps;          // normalised ops the reference's functions call (glue excluded)
    QSet<QString> refKeys;         // refOps and the torch.nn classes Model constructs, as matchKey() gives them
    QSet<QString> forbiddenNames;  // normalised last components of the forbidden ops
    int copyBegin = 0;  // body [copyBegin, copyEnd) of a `class Model` the solution carries as an unused copy of the
    int copyEnd = 0;    // reference: dead code while inherits_reference finds every use of Model
    QList<Finding> findings;
    QSet<QString> keys;  // what add() already reported

    void add(const QString& check, Finding::Severity severity, int line, const QString& what);
    // "ModelNew.forward" or "module-level code": who does what a finding reports.
    QString who(int token) const;
    bool isTensorMethodCall(const PyRef& r) const { return isMethodCall(py, r); }
    bool inReferenceCopy(int token) const { return token >= copyBegin && token < copyEnd; }
};

void findReferenceCopy(StaticContext& c);
void checkInheritsReference(StaticContext& c);
void checkTryFallback(StaticContext& c);
void checkThreadsAndStreams(StaticContext& c);
void checkPatching(StaticContext& c);
// static.no_compiled_call (StaticCompiledReach.cpp): decided by the verdict only when the outputs were right.
void checkCompiledCallReached(StaticContext& c);

}  // namespace km::detail
