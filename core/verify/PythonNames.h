#pragma once
// What the names of a Python file refer to, as far as a reading without running it can tell: imports, simple
// aliases (`sm = torch.softmax`, `self.act = nn.ReLU()`), and every dotted name used in code. Pure functions.

#include "verify/PythonScan.h"

#include <QHash>
#include <QSet>
#include <QStringList>

namespace km {

struct PyImport {
    int line = 0;
    QString module;  // what the statement imports: "torch.nn.functional", "torch.softmax" (from torch import softmax)
    QString bound;   // the name it binds: "F", "softmax", "torch"; "*" for a star import
};

// A dotted name in code: `F.softmax`, `x.float().softmax` gives [x, float] and, on the expression, [softmax].
struct PyRef {
    QStringList parts;          // as written
    QString resolved;           // through imports and aliases: "torch.nn.functional.softmax"; as written otherwise
    bool onExpression = false;  // hangs off a call, subscript or literal: `f(x).softmax`
    bool called = false;        // followed by "("
    bool assigned = false;      // target of an assignment, augmented assignment or del (attribute or item)
    QString itemKey;            // assigned through a subscript with a string key: os.environ["MAX_JOBS"] = ...
    bool viaGetattr = false;    // synthesised from getattr(obj, "name")
    int line = 0;               // line of the last name
    int first = 0;              // token range [first, last]
    int last = 0;
};

struct PyNames {
    PyScan scan;
    QList<PyImport> imports;
    QHash<QString, QString> aliases;  // dotted name → what it was bound to, resolved: "F" → "torch.nn.functional"
    // dotted name → the resolved callee whose result it holds: "self.act" → "torch.nn.ReLU"
    QHash<QString, QString> results;
    QStringList starModules;  // modules imported with `from m import *`
    QList<PyRef> refs;        // in source order

    QString resolve(const QStringList& parts) const;
    // "ModelNew.forward" for a token inside that method; empty at module level.
    QString scopeAt(int token) const;
    // True when the receiver of a call (`x` of `x.softmax()`) is a module, `self` or a compiled extension rather than
    // something that may be a tensor.
    bool isNonTensorReceiver(const PyRef& ref) const;
};

PyNames analyzePython(const QString& source);

// "relu" for relu, relu_, _relu, relu_out, __relu__: the variants of one op.
QString normalizedOp(const QString& name);

}  // namespace km
