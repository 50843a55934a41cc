#pragma once
// Solutions and verdicts as values: what the verifier produces and the store keeps (docs/verifier.md).

#include <QDateTime>
#include <QList>
#include <QString>
#include <QVariantMap>
#include <optional>

namespace km {

// The status taxonomy of ../shared/docs/verification.md, in the order of precedence used to combine findings.
enum class VerdictStatus {
    InvalidReference,
    SystemError,
    RewardHack,
    CompileError,
    Timeout,
    RuntimeError,
    IncorrectShape,
    IncorrectDtype,
    IncorrectNumerical,
    Passed,
};

QString toString(VerdictStatus s);  // "PASSED", "COMPILE_ERROR", ...
std::optional<VerdictStatus> verdictStatusFromString(const QString& s);
const QList<VerdictStatus>& allVerdictStatuses();

// One integrity or static finding. Severity Error makes the verdict REWARD_HACK; Warning is evidence only.
struct Finding {
    enum class Severity { Error, Warning };
    QString check;  // "static.threads", "runtime.identity", ... (docs/verifier.md)
    Severity severity = Severity::Error;
    int line = 0;  // 1-based line of the solution file; 0 when the finding has no line
    QString message;
    bool operator==(const Finding&) const = default;
};

QString toString(Finding::Severity s);  // "error", "warning"

// A compiler message located in the solution file (through the load_inline source map).
struct SolutionDiagnostic {
    QString severity;       // error, warning, note
    int line = 0;           // line of the solution .py; 0 when it maps to none
    QString generatedFile;  // where the compiler reported it (cuda.cu, main.cpp)
    int generatedLine = 0;
    QString message;
    bool operator==(const SolutionDiagnostic&) const = default;
};

struct Verdict {
    qint64 id = 0;          // 0 until stored
    qint64 solutionId = 0;  // 0 until stored
    VerdictStatus status = VerdictStatus::SystemError;
    QDateTime createdAt;
    QString harnessVersion;
    QString executor;   // "local", "slurm"
    QString isolation;  // one line: what was in force (network, filesystem, limits)
    QString summary;    // one line for lists: the failing configuration, the checks that fired, the speedup
    QList<Finding> findings;
    QList<SolutionDiagnostic> diagnostics;
    QVariantMap environment;  // GPU, driver, clocks, torch, nvcc
    QVariantMap evidence;     // the harness's verdict object: trials, failure, error, build, timing, profile
    std::optional<double> runtimeMs;
    std::optional<double> refRuntimeMs;
    std::optional<double> speedup;
};

struct Solution {
    qint64 id = 0;
    QString taskId;
    QString code;
    QString codeHash;                           // sha256 hex of code
    QString origin = QStringLiteral("manual");  // manual, agent, import
    QDateTime createdAt;
};

// A stored verdict with what a list shows of its solution.
struct VerdictSummary {
    qint64 id = 0;
    qint64 solutionId = 0;
    QString taskId;
    VerdictStatus status = VerdictStatus::SystemError;
    QDateTime createdAt;
    QString summary;
    std::optional<double> speedup;
};

}  // namespace km
