#pragma once
// Turns the harness's verdict object, the static findings and the solution's source into the stored Verdict:
// status precedence, compiler messages mapped to solution lines, a one-line summary. Pure functions.

#include "model/Verdict.h"

#include <QVariantMap>

namespace km {

struct AssemblyInput {
    QVariantMap harness;   // the harness's verdict object (empty when no verdict came back)
    QString harnessError;  // why no verdict came back (worker died, refused the request, ...)
    QList<Finding> staticFindings;
    QString solutionSource;
    QString executor;
    QString network;  // what the executor put around the worker
};

Verdict assembleVerdict(const AssemblyInput& in);

// Compiler messages of a failed load_inline build, located in the solution file.
QList<SolutionDiagnostic> mapBuildDiagnostics(const QString& log, const QVariantMap& generated,
                                              const QString& solutionSource);

// One line for lists: what a reviewer needs to know first.
QString summarise(const Verdict& v);

}  // namespace km
