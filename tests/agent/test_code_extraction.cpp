// Taking the solution file out of an LLM reply: fences of every kind, several blocks, cut-off replies, replies
// without fences, replies without code, CRLF and fences indented inside lists.
#include "agent/CodeExtraction.h"

#include <QtTest>

using namespace km;

namespace {

// A whole solution file, as the model would send it.
const QString kFile = QStringLiteral("import torch\n"
                                     "import torch.nn as nn\n"
                                     "from torch.utils.cpp_extension import load_inline\n"
                                     "\n"
                                     "src = \"\"\"\n"
                                     "__global__ void k(float* x) { x[0] = 1.f; }\n"
                                     "\"\"\"\n"
                                     "ext = load_inline(name=\"e\", cpp_sources=\"\", cuda_sources=src,\n"
                                     "                  functions=[])\n"
                                     "\n"
                                     "\n"
                                     "class ModelNew(nn.Module):\n"
                                     "    def forward(self, x):\n"
                                     "        return x\n");
const QString kOther = QStringLiteral("class ModelNew(nn.Module):\n    def forward(self, x):\n        return -x\n");

QString fenced(const QString& code, const QString& fence = QStringLiteral("```python"),
               const QString& close = QStringLiteral("```"))
{
    return fence + QLatin1Char('\n') + code + close + QLatin1Char('\n');
}

QString indent(const QString& text, const QString& prefix)
{
    QStringList lines = text.split('\n');
    for (QString& l : lines)
        if (!l.isEmpty())
            l.prepend(prefix);
    return lines.join('\n');
}

}  // namespace

class TestCodeExtraction : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void extract_data()
    {
        QTest::addColumn<QString>("reply");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("code");  // expected code; empty: not compared
        QTest::addColumn<int>("blockIndex");
        QTest::addColumn<bool>("truncated");
        QTest::addColumn<QString>("text");  // part of the note (success) or of message + detail (error)

        QTest::newRow("python block") << "Here it is:\n\n" + fenced(kFile) + "\nThis should be fast." << true << kFile
                                      << 0 << false << "block 1 of 1 (python)";
        QTest::newRow("py tag") << fenced(kFile, "```py") << true << kFile << 0 << false << "(py)";
        QTest::newRow("untagged") << fenced(kFile, "```") << true << kFile << 0 << false << "(untagged)";
        QTest::newRow("tilde fence") << fenced(kFile, "~~~python", "~~~") << true << kFile << 0 << false << "";
        QTest::newRow("tag case and info string")
            << fenced(kFile, "``` Python title=\"solution.py\"") << true << kFile << 0 << false << "(python)";
        QTest::newRow("kernel block first") << "The kernel:\n" + fenced("__global__ void k() {}\n", "```cuda") +
                                                   "The file:\n" + fenced(kFile) + fenced("python run.py\n", "```bash")
                                            << true << kFile << 1 << false << "block 2 of 3 (python)";
        QTest::newRow("two ModelNew blocks: the last")
            << fenced(kFile) + "Better:\n" + fenced(kOther, "```") << true << kOther << 1 << false
            << "2 blocks define ModelNew, the last was taken";
        QTest::newRow("python preferred over other tags")
            << fenced(kFile) + fenced(kOther, "```text") << true << kFile << 0 << false << "block 1 of 2";
        QTest::newRow("only another tag") << fenced(kOther, "```cpp") << true << kOther << 0 << false << "(cpp)";
        QTest::newRow("crlf") << QString("Here:\r\n" + fenced(kFile)).replace("\n", "\r\n") << true << kFile << 0
                              << false << "";
        QTest::newRow("lone cr") << QString(fenced(kOther)).replace("\n", "\r") << true << kOther << 0 << false << "";
        QTest::newRow("fence in a list item") << "1. Write the file:\n" + indent(fenced(kFile), "   ") + "2. Run it.\n"
                                              << true << kFile << 0 << false << "";
        QTest::newRow("deeper list item, tabs")
            << "- a\n  - b\n" + indent(fenced(kOther), "\t  ") << true << kOther << 0 << false << "";
        QTest::newRow("longer fence holds a shorter one")
            << fenced("# usage:\n```\nm = ModelNew()\n```\n" + kOther, "````python", "````") << true
            << "# usage:\n```\nm = ModelNew()\n```\n" + kOther << 0 << false << "";
        QTest::newRow("backticks inside tilde fence")
            << fenced("x = 1\n```\n" + kOther, "~~~", "~~~") << true << "x = 1\n```\n" + kOther << 0 << false << "";
        QTest::newRow("inline triple backticks are no fence")
            << "```x``` is inline code.\n" + fenced(kOther) << true << kOther << 0 << false << "block 1 of 1";
        QTest::newRow("blank lines trimmed") << fenced("\n\n" + kOther + "\n\n") << true << kOther << 0 << false << "";

        // Cut-off replies (finish_reason "length"): accepted only when the file looks complete.
        QTest::newRow("unclosed but complete")
            << "Here:\n```python\n" + kFile << true << kFile << 0 << true << "never closed";
        QTest::newRow("cut inside the CUDA string")
            << "```python\n" + kFile.left(kFile.indexOf("__global__") + 20) << false << "" << 0 << false
            << "reply was cut off inside a code block (opened at line 1";
        QTest::newRow("cut inside forward") << "Text\n\n```python\n" + kFile.left(kFile.size() - 3) + "(x,\n"
                                            << false << "" << 0 << false << "opened at line 3";
        QTest::newRow("cut before ModelNew") << "```python\nimport torch\nx = 1\n"
                                             << false << "" << 0 << false << "reply was cut off";
        QTest::newRow("cut block after a complete one") << fenced(kFile) + "Improved:\n```python\nimport torch\n"
                                                        << false << "" << 0 << false << "opened at line 18";
        QTest::newRow("unclosed trailing shell block") << fenced(kFile) + "Run:\n```bash\npython bench.py\n"
                                                       << true << kFile << 0 << false << "unclosed bash block";

        // No fences at all.
        QTest::newRow("whole reply is python") << kFile << true << kFile << -1 << false << "no code fence";
        QTest::newRow("whole reply with comments")
            << "# Solution\n" + kOther << true << "# Solution\n" + kOther << -1 << false << "";
        QTest::newRow("prose and code without fences")
            << "Here is the solution:\n" + kFile << false << "" << 0 << false << "not plain Python";
        QTest::newRow("indented code without fences")
            << indent(kOther, "    ") << false << "" << 0 << false << "no code block with class ModelNew in the reply";
        QTest::newRow("no code") << "I am sorry, I cannot help with that." << false << "" << 0 << false
                                 << "no code block with class ModelNew in the reply";
        QTest::newRow("empty reply") << "  \n" << false << "" << 0 << false << "the reply is empty";
        QTest::newRow("blocks without ModelNew")
            << fenced("print(1)\n") + fenced("__global__ void k() {}\n", "```cuda") << false << "" << 0 << false
            << "2 code block(s) (python, cuda); none defines class ModelNew";
        QTest::newRow("ModelNewer is not ModelNew") << fenced("class ModelNewer(nn.Module):\n    pass\n") << false << ""
                                                    << 0 << false << "none defines class ModelNew";
        QTest::newRow("ModelNew only in prose")
            << "I wrote class ModelNew below.\n" + fenced("print(1)\n") << false << "" << 0 << false << "none defines";
    }

    void extract()
    {
        QFETCH(QString, reply);
        QFETCH(bool, ok);
        QFETCH(QString, code);
        QFETCH(int, blockIndex);
        QFETCH(bool, truncated);
        QFETCH(QString, text);
        const auto r = extractSolution(reply);
        if (!ok) {
            QVERIFY2(!r.ok(), qPrintable(r.ok() ? r->note : QString()));
            QCOMPARE(r.error().code, ErrorCode::InvalidInput);
            const QString all = r.error().message + " | " + r.error().detail;
            QVERIFY2(all.contains(text), qPrintable(all));
            QVERIFY(!r.error().message.contains('\n'));
            return;
        }
        QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error().message + " | " + r.error().detail));
        if (!code.isEmpty())
            QCOMPARE(r->code, code);
        QCOMPARE(r->blockIndex, blockIndex);
        QCOMPARE(r->truncated, truncated);
        QVERIFY2(r->note.contains(text), qPrintable(r->note));
        QVERIFY(r->code.endsWith('\n') && !r->code.endsWith("\n\n"));
        QVERIFY(!r->code.contains('\r'));
    }
};

QTEST_GUILESS_MAIN(TestCodeExtraction)
#include "test_code_extraction.moc"
