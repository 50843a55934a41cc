// The static checks over fixture solutions (tests/data/static): honest solutions give no error, and every trick is
// found at its line with the check id and severity of docs/verifier.md, and nothing else is.
#include "../common/HonestLeakyRelu.h"
#include "verify/CppNames.h"
#include "verify/PythonScan.h"
#include "verify/StaticChecks.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace km;

namespace {

QString fixture(const QString& name)
{
    if (name.isEmpty())
        return {};
    QFile f(QStringLiteral(KMOSAIC_TEST_DATA) + "/static/" + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(name));
    return QString::fromUtf8(f.readAll());
}

const QStringList kSoftmaxOps{"torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax",
                              "torch.nn.Softmax"};

// "12 static.forbidden_op error": what a row asserts of one finding.
QStringList summarize(const QList<Finding>& findings)
{
    QStringList out;
    for (const Finding& f : findings)
        out.append(QStringLiteral("%1 %2 %3")
                       .arg(f.line)
                       .arg(f.check, f.severity == Finding::Severity::Error ? "error" : "warning"));
    return out;
}

QList<Finding> run(const QString& solution, const QString& reference = {}, const QStringList& ops = kSoftmaxOps,
                   const QString& dtype = QStringLiteral("float32"))
{
    return runStaticChecks({solution, reference, ops, dtype});
}

}  // namespace

class TestStaticChecks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QStringList>("forbidden");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QStringList>("expected");
        const QString sm = QStringLiteral("reference_softmax.py");
        QTest::newRow("honest softmax: no finding at all")
            << "honest_softmax.py" << sm << kSoftmaxOps << "float32" << QStringList{};
        QTest::newRow("honest, with an unused copy of the reference's Model")
            << "honest_with_reference_copy.py" << sm << kSoftmaxOps << "float32" << QStringList{};
        QTest::newRow("honest linear+relu: nn.Linear for its parameters is a warning only")
            << "honest_linear_relu.py"
            << "reference_linear_relu.py"
            << QStringList{"torch.nn.functional.linear", "torch.relu", "torch.nn.functional.relu"} << "float32"
            << QStringList{"33 static.reference_op warning"};
        QTest::newRow("forbidden op through every alias, in Python and C++")
            << "forbidden_aliases.py" << sm << kSoftmaxOps << "float32"
            << QStringList{
                   "10 static.forbidden_op error", "11 static.forbidden_op error", "12 static.forbidden_op error",
                   "16 static.forbidden_op error", "22 static.forbidden_op error", "25 static.forbidden_op error",
                   "26 static.forbidden_op error", "27 static.forbidden_op error", "28 static.forbidden_op error",
                   "29 static.forbidden_op error", "30 static.forbidden_op error"};
        QTest::newRow("no forbidden list: the reference's op is a warning")
            << "forbidden_aliases.py" << sm << QStringList{} << "float32"
            << QStringList{"22 static.reference_op warning", "25 static.reference_op warning",
                           "26 static.reference_op warning", "27 static.reference_op warning",
                           "28 static.reference_op warning", "29 static.reference_op warning",
                           "30 static.reference_op warning"};
        QTest::newRow("ModelNew(Model) and super().forward")
            << "inherits_reference.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"5 static.inherits_reference error", "6 static.no_compiled_call error",
                           "7 static.inherits_reference error"};
        QTest::newRow("Model through an import alias, a derived class, Model.forward")
            << "inherits_alias.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"2 static.inherits_reference error", "4 static.inherits_reference error",
                           "7 static.inherits_reference error", "14 static.inherits_reference error",
                           "16 static.no_compiled_call error",  "17 static.inherits_reference error"};
        QTest::newRow("try/except: fallbacks are errors, swallowing a warning, re-raising nothing")
            << "try_fallback.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"7 static.try_fallback warning", "20 static.try_fallback error",
                           "26 static.try_fallback error", "32 static.try_fallback error"};
        QTest::newRow("threads in Python and C++")
            << "threads.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"1 static.threads error",  "2 static.threads error",  "10 static.threads error",
                           "12 static.threads error", "14 static.threads error", "20 static.no_compiled_call error",
                           "23 static.threads error"};
        QTest::newRow("streams and BLAS handles; the current stream and comments are fine")
            << "streams.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"9 static.streams error",  "10 static.streams error", "11 static.streams error",
                           "13 static.streams error", "14 static.streams error", "22 static.no_compiled_call error",
                           "23 static.streams error", "24 static.streams error"};
        QTest::newRow("patching; build variables are fine")
            << "patching.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"1 static.patching error",  "2 static.patching error",  "4 static.patching error",
                           "13 static.patching error", "14 static.patching error", "15 static.patching error",
                           "16 static.patching error", "17 static.patching error", "18 static.patching error",
                           "19 static.patching error", "20 static.patching error", "21 static.patching warning",
                           "22 static.patching error", "23 static.patching error", "27 static.no_compiled_call error"};
        QTest::newRow("half and bfloat16 in a float32 task")
            << "precision.py" << QString() << QStringList{} << "float32"
            << QStringList{"6 static.precision_cast warning",  "8 static.precision_cast warning",
                           "10 static.precision_cast warning", "11 static.precision_cast warning",
                           "16 static.no_compiled_call error", "17 static.precision_cast warning",
                           "18 static.precision_cast warning", "19 static.precision_cast warning",
                           "20 static.precision_cast warning"};
        QTest::newRow("half in a float16 task is no precision finding")
            << "precision.py" << QString() << QStringList{} << "float16"
            << QStringList{"16 static.no_compiled_call error"};
        QTest::newRow("a file that does not tokenize still gives what can be read")
            << "syntax_error.py" << sm << kSoftmaxOps << "float32"
            << QStringList{"4 static.forbidden_op error", "6 static.no_compiled_call error",
                           "8 static.forbidden_op error"};
    }
    void fixtures()
    {
        QFETCH(QString, file);
        QFETCH(QString, reference);
        QFETCH(QStringList, forbidden);
        QFETCH(QString, dtype);
        QFETCH(QStringList, expected);
        const QList<Finding> findings = run(fixture(file), fixture(reference), forbidden, dtype);
        QVERIFY2(summarize(findings) == expected, qPrintable(summarize(findings).join(", ")));
        for (const Finding& f : findings)
            QVERIFY2(f.message.startsWith(QStringLiteral("line %1: ").arg(f.line)), qPrintable(f.message));
    }

    void snippets_data()
    {
        QTest::addColumn<QString>("python");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("star import") << "from torch import *\ny = softmax(x, 0)\n"
                                     << QStringList{"2 static.forbidden_op error"};
        QTest::newRow("an attribute named like the op is not a call")
            << "import torch\nm = torch.finfo(x.dtype).max\nn = x.max\n"
            << QStringList{};
        QTest::newRow("the extension's own softmax")
            << "ext = load_inline(name='s')\nself.ext = ext\ny = ext.softmax(x)\n"
               "z = self.ext.softmax(x)\n"
            << QStringList{};
        QTest::newRow("CRLF and tabs")
            << "import torch\r\ntry:\r\n\tx = 1\r\nexcept Exception:\r\n\ty = torch.relu(x)\r\n"
            << QStringList{"5 static.try_fallback error"};
        QTest::newRow("docstrings are prose") << "'''We never start a std::thread.'''\nclass ModelNew:\n"
                                                 "    \"\"\"Nor call cudaStreamCreate.\"\"\"\n"
                                              << QStringList{"2 static.no_compiled_call error"};
        QTest::newRow("a docstring read through __doc__ is source") << "'''\nstd::thread t;\n'''\nsrc = __doc__\n"
                                                                    << QStringList{"2 static.threads error"};
        QTest::newRow("one-line C++ strings") << "cpp = 'void f() { std::thread t; }'\n"
                                              << QStringList{"1 static.threads error"};
        QTest::newRow("computed import and exec") << "m = __import__(name)\nexec(code)\n"
                                                  << QStringList{"1 static.patching error", "2 static.patching error"};
        QTest::newRow("dynamic import of threading") << "t = __import__('threading')\n"
                                                     << QStringList{"1 static.threads error"};
        QTest::newRow("environment writes") << "import os\nos.environ['MAX_JOBS'] = '2'\nos.environ['X'] = '1'\n"
                                            << QStringList{"3 static.patching warning"};
        QTest::newRow("rebinding a local name patches nothing") << "from time import perf_counter\nperf_counter = 3\n"
                                                                << QStringList{};
        QTest::newRow("else of an if is no try") << "import torch\nif a:\n    pass\nelse:\n    y = torch.relu(x)\n"
                                                 << QStringList{};
        QTest::newRow("unterminated triple quote")
            << "import torch\ny = torch.softmax(x)\ns = '''\nstd::thread"
            << QStringList{"2 static.forbidden_op error", "4 static.threads error"};
        QTest::newRow("the copy of Model reached through globals()")
            << "import torch\nclass Model:\n    def forward(self, x):\n        return torch.softmax(x, -1)\n"
               "class ModelNew:\n    def forward(self, x):\n        return globals()['Mod' + 'el']().forward(x)\n"
            << QStringList{"4 static.forbidden_op error"};
        QTest::newRow("the else of a try") << "import torch\ntry:\n    y = 1\nexcept E:\n    raise\nelse:\n"
                                              "    y = torch.relu(x)\n"
                                           << QStringList{"7 static.try_fallback error"};
        QTest::newRow("empty") << "" << QStringList{};
    }
    void snippets()
    {
        QFETCH(QString, python);
        QFETCH(QStringList, expected);
        QCOMPARE(summarize(run(python)), expected);
    }

    // static.no_compiled_call: every way an honest solution reaches its kernel, and forwards that reach none.
    void compiledCodeReached_data()
    {
        QTest::addColumn<QString>("python");
        QTest::addColumn<QStringList>("expected");
        const QString build = "from torch.utils.cpp_extension import load_inline\n"
                              "ext = load_inline(name='k', cpp_sources=src, functions=['relu'])\n";
        const QString cls = "class ModelNew(torch.nn.Module):\n";
        QTest::newRow("module-level extension")
            << build + cls + "    def forward(self, x):\n        return ext.relu(x)\n"
            << QStringList{};
        QTest::newRow("extension held by self")
            << "import torch.utils.cpp_extension as ce\n" + cls +
                   "    def __init__(self):\n        super().__init__()\n        self.k = ce.load_inline(name='k')\n"
                   "    def forward(self, x):\n        return self.k.relu(x)\n"
            << QStringList{};
        QTest::newRow("through a helper and a method")
            << build + "def run(x):\n    return ext.relu(x.contiguous())\n" + cls +
                   "    def go(self, x):\n        return run(x)\n    def forward(self, x):\n        return self.go(x)\n"
            << QStringList{};
        QTest::newRow("an alias of the compiled function")
            << build + "relu = ext.relu\n" + cls + "    def forward(self, x):\n        return relu(x)\n"
            << QStringList{};
        QTest::newRow("an autograd.Function's apply")
            << build +
                   "class Fn(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                   "        return ext.relu(x)\n" +
                   cls + "    def forward(self, x):\n        return Fn.apply(x)\n"
            << QStringList{};
        QTest::newRow("a lazy builder") << "from torch.utils.cpp_extension import load_inline\n_e = None\n"
                                           "def kernels():\n    global _e\n    if _e is None:\n"
                                           "        _e = load_inline(name='k')\n    return _e\n" +
                                               cls + "    def forward(self, x):\n        return kernels().relu(x)\n"
                                        << QStringList{};
        QTest::newRow("a cache keyed by name")
            << "from torch.utils.cpp_extension import load_inline\n_c = {}\n_c['k'] = load_inline(name='k')\n" + cls +
                   "    def forward(self, x):\n        return _c['k'].relu(x)\n"
            << QStringList{};
        QTest::newRow("a submodule of the file")
            << build + "class Block(torch.nn.Module):\n    def forward(self, x):\n        return ext.relu(x)\n" + cls +
                   "    def __init__(self):\n        super().__init__()\n        self.b = Block()\n"
                   "    def forward(self, x):\n        return self.b(x)\n"
            << QStringList{};
        QTest::newRow("a registered op") << build + cls +
                                                "    def forward(self, x):\n        return torch.ops.mine.relu(x)\n"
                                         << QStringList{};
        QTest::newRow("forward of a base class in the file")
            << build + "class Base(torch.nn.Module):\n    def forward(self, x):\n        return ext.relu(x)\n"
                       "class ModelNew(Base):\n    pass\n"
            << QStringList{};
        QTest::newRow("a call the reading cannot follow counts")
            << build + cls + "    def forward(self, x):\n        return getattr(ext, self.name)(x)\n"
            << QStringList{};
        QTest::newRow("builds a kernel, computes with torch")
            << build + cls + "    def forward(self, x):\n        return torch.clamp(x, min=0)\n"
            << QStringList{"4 static.no_compiled_call error"};
        QTest::newRow("calls the kernel once in __init__ only")
            << build + cls +
                   "    def __init__(self):\n        super().__init__()\n        ext.relu(torch.ones(1))\n"
                   "    def forward(self, x):\n        return x.clamp(min=0)\n"
            << QStringList{"7 static.no_compiled_call error"};
        QTest::newRow("a helper that never reaches it")
            << build + "def warm():\n    return ext.relu\ndef run(x):\n    return torch.relu(x)\n" + cls +
                   "    def forward(self, x):\n        return run(x)\n"
            << QStringList{"8 static.no_compiled_call error"};
        QTest::newRow("builds nothing") << "import torch\n" + cls +
                                               "    def forward(self, x):\n        return torch.relu(x)\n"
                                        << QStringList{"3 static.no_compiled_call error"};
        QTest::newRow("a file with no ModelNew is left to the harness") << build << QStringList{};
    }
    void compiledCodeReached()
    {
        QFETCH(QString, python);
        QFETCH(QStringList, expected);
        const QList<Finding> f = run(python, {}, {});
        QVERIFY2(summarize(f) == expected, qPrintable(summarize(f).join(", ")));
    }

    // Every honest solution the project keeps (the CPU and GPU corpora, the static fixtures, every PASSED step of the
    // shipped demonstrations) reaches its compiled code.
    void honestSolutionsReachTheirKernels()
    {
        const QString root = QStringLiteral(KMOSAIC_SOURCE_DIR);
        QList<std::pair<QString, QString>> solutions;  // where, code
        for (const QString& dir :
             {QStringLiteral("tests/verify/corpus/honest"), QStringLiteral("tests/gpu/solutions/honest")})
            for (const QFileInfo& fi : QDir(root + '/' + dir).entryInfoList({"*.py"}, QDir::Files)) {
                QFile f(fi.filePath());
                QVERIFY(f.open(QIODevice::ReadOnly));
                solutions.append({fi.filePath(), QString::fromUtf8(f.readAll())});
            }
        QFile bundle(root + "/resources/trajectories/h200-manual-demonstrations.json");
        QVERIFY(bundle.open(QIODevice::ReadOnly));
        for (const QJsonValue& run : QJsonDocument::fromJson(bundle.readAll()).object().value("runs").toArray())
            for (const QJsonValue& step : run.toObject().value("steps").toArray())
                if (step.toObject().value("status").toString() == QLatin1String("PASSED"))
                    solutions.append({run.toObject().value("task_id").toString() + " step " +
                                          QString::number(step.toObject().value("idx").toInt() + 1),
                                      step.toObject().value("code").toString()});
        QVERIFY(solutions.size() > 30);
        // The tests' kernel (tests/common/HonestLeakyRelu.h) is the corpus's, so that one build serves them all.
        const QString kernel = test::leakyReluKernel();
        const auto corpusLeaky = std::find_if(solutions.cbegin(), solutions.cend(),
                                              [](const auto& s) { return s.first.endsWith("honest/leaky_relu.py"); });
        QVERIFY(corpusLeaky != solutions.cend());
        QVERIFY(corpusLeaky->second.contains(kernel.mid(kernel.indexOf("cpp_source ="))));
        solutions.append({"tests/common/HonestLeakyRelu.h", test::honestLeakyRelu()});
        for (const auto& [where, code] : solutions)
            for (const Finding& f : run(code, {}, {}))
                QVERIFY2(f.check != QLatin1String("static.no_compiled_call"), qPrintable(where + ": " + f.message));
    }

    void messageNamesScopeOpAndRule()
    {
        const QList<Finding> f = run("import torch\n\nclass ModelNew:\n    def forward(self, x):\n"
                                     "        return torch.softmax(x, -1)\n")
                                     .sliced(1);  // after the forward that reaches no compiled code (line 4)
        QCOMPARE(f.size(), 1);
        QCOMPARE(f[0].message, QStringLiteral("line 5: ModelNew.forward calls torch.softmax, which this task forbids"));
    }

    void sortedByLineThenCheck()
    {
        const QList<Finding> f = run("import threading\nimport torch\ny = torch.softmax(torch.cuda.Stream(), 0)\n");
        QCOMPARE(summarize(f),
                 (QStringList{"1 static.threads error", "3 static.forbidden_op error", "3 static.streams error"}));
    }

    void tokensTellCodeFromStringsAndComments()
    {
        const PyScan s = scanPython("x = 'a # b'  # torch.softmax\ny = (1,\n     2)\nz = \"\"\"\nq\"\"\" + w\n");
        QStringList names;
        for (const PyToken& t : s.tokens)
            if (t.kind == PyToken::Kind::Name)
                names.append(QStringLiteral("%1@%2").arg(t.text).arg(t.line));
        QCOMPARE(names, (QStringList{"x@1", "y@2", "z@4", "w@5"}));
        QCOMPARE(s.errorLine, 0);
        QCOMPARE(scanPython("a = 'open\nb = 1\n").errorLine, 1);
    }

    void blocksOfClassDefAndTry()
    {
        const PyScan s = scanPython("class A(B):\n    def f(self):\n        try: g()\n        except E:\n"
                                    "            pass\n        finally:\n            h()\nx = 1\n");
        QStringList kinds;
        for (const PyBlock& b : s.blocks)
            kinds.append(QStringLiteral("%1:%2:%3").arg(int(b.kind)).arg(b.name).arg(b.line));
        QCOMPARE(kinds, (QStringList{"0:A:1", "1:f:2", "2::3", "3::4", "5::6"}));
        QCOMPARE(s.blocks[3].tryHeader, s.blocks[2].header);
        QCOMPARE(s.tokens[s.blocks[0].end].text, QStringLiteral("x"));  // the class ends at the dedent
    }

    void cppNamesSkipCommentsAndKeepPythonLines()
    {
        const QString py = "s = \"\"\"\n// std::thread\nauto a = at::cuda::getCurrentCUDAStream(); /* x */ b.relu();\n"
                           "\"\"\"\n";
        const QList<CppName> names = inlineCppNames(py, scanPython(py));
        QStringList got;
        for (const CppName& n : names)
            got.append(QStringLiteral("%1@%2%3%4")
                           .arg(n.parts.join("::"))
                           .arg(n.line)
                           .arg(n.member ? " member" : "", n.called ? " call" : ""));
        QCOMPARE(got,
                 (QStringList{"auto@3", "a@3", "at::cuda::getCurrentCUDAStream@3 call", "b@3", "relu@3 member call"}));
    }
};

QTEST_GUILESS_MAIN(TestStaticChecks)
#include "test_static_checks.moc"
