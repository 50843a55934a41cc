// Compiler diagnostics on load_inline's generated cuda.cu point at the right line of the solution .py, checked on
// real nvcc output.
#include "curate/TaskFolder.h"
#include "toolchain/CompilerDiagnostics.h"
#include "verify/InlineSourceMap.h"

#include <QtTest>

using namespace km;

class TestInlineSourceMap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stringsAndTheirLines_data()
    {
        QTest::addColumn<QString>("python");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QList<int>>("lines");
        QTest::newRow("content on the next line") << "x = 1\ns = \"\"\"\nab\ncd\"\"\"\n"
                                                  << "\nab\ncd" << QList<int>{2, 3, 4};
        QTest::newRow("content on the quote line") << "s = '''ab\ncd'''"
                                                   << "ab\ncd" << QList<int>{1, 2};
        QTest::newRow("escaped newline adds a value line") << "s = \"\"\"a\\nb\nc\"\"\""
                                                           << "a\nb\nc" << QList<int>{1, 1, 2};
        QTest::newRow("line continuation removes one") << "s = \"\"\"a\\\nb\nc\"\"\""
                                                       << "ab\nc" << QList<int>{1, 3};
        QTest::newRow("raw keeps backslashes") << "s = r\"\"\"a\\nb\nc\"\"\""
                                               << "a\\nb\nc" << QList<int>{1, 2};
        QTest::newRow("quotes in a comment or a short string") << "# \"\"\" no\nt = \"'''\"\ns = \"\"\"x\"\"\""
                                                               << "x" << QList<int>{3};
    }
    void stringsAndTheirLines()
    {
        QFETCH(QString, python);
        QFETCH(QString, value);
        QFETCH(QList<int>, lines);
        const QList<PythonString> s = tripleQuotedStrings(python);
        QCOMPARE(s.size(), 1);
        QCOMPARE(s.first().value, value);
        QCOMPARE(s.first().sourceLines, lines);
    }

    void prefixLinesMapToNothing()
    {
        const QList<PythonString> s = tripleQuotedStrings("s = \"\"\"\nint a;\nint b;\n\"\"\"");
        const QString generated =
            "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + s[0].value;
        QCOMPARE(mapGeneratedLine(generated, 1, s), 0);  // an include the tool added
        QCOMPARE(mapGeneratedLine(generated, 5, s), 2);  // "int a;"
        QCOMPARE(mapGeneratedLine(generated, 6, s), 3);  // "int b;"
    }

    void realNvccErrorPointsAtTheSolutionLine()
    {
        const QString nvcc = QFileInfo::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc"
                                                                           : QStandardPaths::findExecutable("nvcc");
        if (nvcc.isEmpty())
            QSKIP("nvcc not found (CUDA Toolkit at /usr/local/cuda)");
        const QString pyPath = QStringLiteral(KMOSAIC_TEST_DATA) + "/solutions/compile_error.py";
        const QString py = readUtf8File(pyPath).value();
        int errorLine = 0;  // the .py line that holds the deliberate error
        const QStringList pyLines = py.split('\n');
        for (int i = 0; i < pyLines.size(); ++i)
            if (pyLines[i].contains("ERROR-LINE"))
                errorLine = i + 1;
        QVERIFY(errorLine > 0);

        // cuda.cu as torch's load_inline writes it: three includes, then the cuda_sources joined by newlines.
        const QList<PythonString> strings = tripleQuotedStrings(py);
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath("stub/torch"));
        QFile stub(dir.filePath("stub/torch/types.h"));  // torch's headers are not needed to reach the error
        QVERIFY(stub.open(QIODevice::WriteOnly));
        stub.write("#pragma once\nnamespace torch { struct Tensor; }\n");
        stub.close();
        const QString generated =
            "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + strings.first().value;
        QFile cu(dir.filePath("cuda.cu"));
        QVERIFY(cu.open(QIODevice::WriteOnly));
        cu.write(generated.toUtf8());
        cu.close();

        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(nvcc, {"-arch=sm_90", "-I", dir.filePath("stub"), "-c", dir.filePath("cuda.cu"), "-o",
                       dir.filePath("cuda.o")});
        QVERIFY(p.waitForFinished(120000));
        const QString output = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitCode() != 0, qPrintable(output));
        const QList<Diagnostic> d = parseCompilerOutput(output);
        QVERIFY2(!d.isEmpty(), qPrintable(output));
        const Diagnostic& first = d.first();
        QVERIFY2(first.message.contains("zero_value"), qPrintable(output));
        QVERIFY(first.line > 3);  // a line of the generated file, after the prefix
        QCOMPARE(mapGeneratedLine(generated, first.line, strings), errorLine);
    }
};

QTEST_GUILESS_MAIN(TestInlineSourceMap)
#include "test_inline_source_map.moc"
