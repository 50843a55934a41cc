// Compiler output (recorded from real nvcc, ptxas and g++ runs) parsed into located diagnostics.
#include "toolchain/CompilerDiagnostics.h"

#include <QtTest>

using namespace km;

namespace {
QString recorded(const QString& name)
{
    QFile f(QStringLiteral(KMOSAIC_TEST_DATA) + "/nvcc/" + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing recorded output %s", qPrintable(name));
    return QString::fromUtf8(f.readAll());
}
}  // namespace

class TestCompilerDiagnostics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void recordedOutput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("severity");
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("nvcc first error") << "two-errors.txt" << 2 << 0 << "error"
                                          << "cuda.cu" << 7 << 0 << "identifier \"undefined_name\" is undefined";
        QTest::newRow("nvcc second error") << "two-errors.txt" << 2 << 1 << "error"
                                           << "cuda.cu" << 10 << 0 << "expected a \";\"";
        QTest::newRow("nvcc warning") << "unused-variable-warning.txt" << 1 << 0 << "warning"
                                      << "warn.cu" << 2 << 0 << "variable \"unused\" was declared but never referenced";
        QTest::newRow("ptxas") << "ptxas-too-much-shared.txt" << 1 << 0 << "error"
                               << "" << 0 << 0 << "uses too much shared data";
        QTest::newRow("host compiler") << "host-compiler-error.txt" << 1 << 0 << "error"
                                       << "host.cpp" << 2 << 5 << "was not declared in this scope";
    }
    void recordedOutput()
    {
        QFETCH(QString, file);
        QFETCH(int, count);
        QFETCH(int, index);
        QFETCH(QString, severity);
        QFETCH(QString, source);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, messagePart);
        const QList<Diagnostic> d = parseCompilerOutput(recorded(file));
        QCOMPARE(d.size(), count);
        const Diagnostic& x = d[index];
        const QString sev = x.severity == Diagnostic::Severity::Error     ? "error"
                            : x.severity == Diagnostic::Severity::Warning ? "warning"
                                                                          : "note";
        QCOMPARE(sev, severity);
        QCOMPARE(x.file, source);
        QCOMPARE(x.line, line);
        QCOMPARE(x.column, column);
        QVERIFY2(x.message.contains(messagePart), qPrintable(x.message));
    }

    void keepsSourceContextAndCode()
    {
        const QList<Diagnostic> d = parseCompilerOutput(recorded("unused-variable-warning.txt"));
        QCOMPARE(d.first().code, QString("177-D"));
        QVERIFY(d.first().context.contains("int unused = 0;"));
        const QList<Diagnostic> e = parseCompilerOutput(recorded("two-errors.txt"));
        QVERIFY(e.first().context.contains("undefined_name"));
        QVERIFY(!e.first().context.contains("expected a"));  // context stops at the blank line
    }
};

QTEST_GUILESS_MAIN(TestCompilerDiagnostics)
#include "test_compiler_diagnostics.moc"
