// Prompt templates: the real ones in resources/prompts load and render with every field (and with only the
// required ones), and the template language's errors: unknown placeholders, missing values, bad sections, version.
#include "agent/PromptTemplate.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;

namespace {

const QString kRealDir = QDir::cleanPath(QStringLiteral(KMOSAIC_TASKS_DIR "/../resources/prompts"));

QString withFrontMatter(const QString& frontMatter, const QString& body)
{
    return QStringLiteral("---\n") + frontMatter + QStringLiteral("---\n") + body;
}

QString render(const QString& text, const QHash<QString, QString>& values, QString* error = nullptr)
{
    auto t = PromptTemplate::parse(text, QStringLiteral("t"));
    if (!t) {
        if (error)
            *error = t.error().message;
        return QStringLiteral("<parse error>");
    }
    auto out = t->render(values);
    if (!out) {
        if (error)
            *error = out.error().message;
        return QStringLiteral("<render error>");
    }
    return out.value();
}

}  // namespace

class TestPrompts : public QObject {
    Q_OBJECT

    PromptLibrary m_lib;

private Q_SLOTS:
    void initTestCase()
    {
        auto lib = PromptLibrary::load(kRealDir);
        QVERIFY2(lib.ok(), qPrintable(lib.ok() ? QString() : lib.error().message));
        m_lib = lib.value();
    }

    void realTemplatesLoad()
    {
        QStringList expected = PromptLibrary::standardNames();
        expected.sort();
        QCOMPARE(m_lib.names(), expected);  // README.md is documentation, not a template
        for (const PromptVersion& v : m_lib.versions())
            QVERIFY2(v.version >= 1, qPrintable(v.name));
        QVERIFY(QRegularExpression("^(\\w+@\\d+ ){4}\\w+@\\d+$").match(m_lib.versionString()).hasMatch());
        QCOMPARE(m_lib.contentHash().size(), 64);
        QVERIFY(m_lib.find(QStringLiteral("repair"))->required().contains(QStringLiteral("code")));
    }

    void realTemplatesRenderEveryField_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString& n : PromptLibrary::standardNames())
            QTest::newRow(qPrintable(n)) << n;
    }

    void realTemplatesRenderEveryField()
    {
        QFETCH(QString, name);
        const PromptTemplate* t = m_lib.find(name);
        QVERIFY(t);
        QHash<QString, QString> all;
        for (const QString& n : t->required() + t->optional())
            all.insert(n, QStringLiteral("<<%1-value>>").arg(n));
        auto full = t->render(all);
        QVERIFY2(full.ok(), qPrintable(full.ok() ? QString() : full.error().message));
        for (const QString& n : t->required() + t->optional())
            QVERIFY2(full->contains(all.value(n)), qPrintable(n));
        QVERIFY(!full->contains(QLatin1String("{{")));

        QHash<QString, QString> requiredOnly;
        for (const QString& n : t->required())
            requiredOnly.insert(n, QStringLiteral("<<%1-value>>").arg(n));
        auto minimal = t->render(requiredOnly);
        QVERIFY2(minimal.ok(), qPrintable(minimal.ok() ? QString() : minimal.error().message));
        QVERIFY(!minimal->contains(QLatin1String("{{")));
        QVERIFY(!minimal->contains(QLatin1String("\n\n\n")));  // vanished sections leave no holes
        QVERIFY(minimal->size() < full->size());
        if (t->required().isEmpty())
            return;
        QHash<QString, QString> missing = requiredOnly;
        missing.remove(t->required().first());
        auto error = t->render(missing);
        QVERIFY(!error.ok());
        QVERIFY2(error.error().message.contains(t->required().first()), qPrintable(error.error().message));
    }

    // The model is told the contract: ModelNew, load_inline, one fenced python block with the whole file.
    void realTemplatesStateTheContract()
    {
        auto system = m_lib.render(QStringLiteral("system"), {});
        QVERIFY(system.ok());
        for (const char* s :
             {"class ModelNew(nn.Module)", "load_inline", "```python", "getCurrentCUDAStream", "whole file"})
            QVERIFY2(system->contains(QLatin1String(s)), s);
        auto implement = m_lib.render(QStringLiteral("implement"),
                                      {{"task_title", "Row softmax"}, {"reference", "class Model: pass"}});
        QVERIFY(implement.ok());
        QVERIFY(implement->contains("```python\nclass Model: pass\n```"));
        QVERIFY(!implement->contains("## Description"));  // an empty presentation is left out, heading and all
        QVERIFY(!implement->contains("## Specification"));
        QVERIFY(implement->contains("```python block"));
        auto repair = m_lib.render(QStringLiteral("repair"),
                                   {{"status", "COMPILE_ERROR"},
                                    {"code", "import torch\n"},
                                    {"diagnostics", "line 14: error: identifier \"zero_value\" is undefined"}});
        QVERIFY(repair.ok());
        QVERIFY(repair->contains("**COMPILE_ERROR**"));
        QVERIFY(repair->contains("```\nline 14: error"));
        QVERIFY(repair->contains("```python\nimport torch\n```"));  // the value's trailing newline is dropped
        QVERIFY(!repair->contains("## Failing configuration"));
        QVERIFY(!m_lib.render(QStringLiteral("nonexistent"), {}).ok());
    }

    void templateLanguage_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("values");  // name=value;name=value
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("error");  // expected part of the error message; empty: success

        const QString fm = "version: 3\nrequired: [a]\noptional: [b]\n";
        QTest::newRow("plain") << withFrontMatter(fm, "A={{a}} B={{ b }}.\n") << "a=1;b=2"
                               << "A=1 B=2."
                               << "";
        QTest::newRow("optional empty") << withFrontMatter(fm, "A={{a}} B={{b}}.") << "a=1"
                                        << "A=1 B=."
                                        << "";
        QTest::newRow("section kept") << withFrontMatter(fm, "x\n{{#b}}\nB is {{b}}\n{{/b}}\ny {{a}}") << "a=1;b=2"
                                      << "x\nB is 2\ny 1"
                                      << "";
        QTest::newRow("section dropped") << withFrontMatter(fm, "x\n{{#b}}\nB is {{b}}\n{{/b}}\ny {{a}}") << "a=1"
                                         << "x\ny 1"
                                         << "";
        QTest::newRow("blank value is empty") << withFrontMatter(fm, "{{#b}}\nB\n{{/b}}\n{{a}}") << "a=1;b=  "
                                              << "1"
                                              << "";
        QTest::newRow("inverted") << withFrontMatter(fm, "{{^b}}\nno b\n{{/b}}\n{{a}}") << "a=1"
                                  << "no b\n1"
                                  << "";
        QTest::newRow("nested") << withFrontMatter("version: 1\nrequired: [a]\noptional: [b, c]\n",
                                                   "{{#b}}\nb\n{{#c}}\nc\n{{/c}}\n{{/b}}\n{{a}}")
                                << "a=1;b=x"
                                << "b\n1"
                                << "";
        QTest::newRow("not re-expanded") << withFrontMatter(fm, "{{a}}{{b}}") << "a={{b}}"
                                         << "{{b}}"
                                         << "";
        QTest::newRow("trailing newline dropped") << withFrontMatter(fm, "[{{a}}]{{b}}") << "a=x\n\n"
                                                  << "[x]"
                                                  << "";
        QTest::newRow("crlf") << withFrontMatter(fm, "{{a}}{{b}}").replace("\n", "\r\n") << "a=1"
                              << "1"
                              << "";
        QTest::newRow("unknown placeholder") << withFrontMatter(fm, "{{a}}{{b}}\n\n{{bogus}}") << "a=1"
                                             << ""
                                             << "unknown placeholder(s) bogus (line 8)";
        QTest::newRow("unknown section") << withFrontMatter(fm, "{{a}}{{b}}\n{{#zzz}}\n{{/zzz}}") << "a=1"
                                         << ""
                                         << "unknown placeholder(s) zzz (line 7)";
        QTest::newRow("declared unused") << withFrontMatter(fm, "{{a}}") << "a=1"
                                         << ""
                                         << "t:4: placeholder \"b\" is declared but the body never uses it";
        QTest::newRow("missing required") << withFrontMatter(fm, "{{a}}{{b}}") << "b=1"
                                          << ""
                                          << "prompt \"t\" needs a value for a";
        QTest::newRow("empty required") << withFrontMatter(fm, "{{a}}{{b}}") << "a= \n"
                                        << ""
                                        << "needs a value for a";
        QTest::newRow("inline section") << withFrontMatter(fm, "{{a}} {{#b}}x{{/b}}") << "a=1"
                                        << ""
                                        << "t:6: section tag {{#b}} must stand on a line of its own";
        QTest::newRow("unclosed section") << withFrontMatter(fm, "{{a}}\n{{#b}}\nx") << "a=1"
                                          << ""
                                          << "t:7: section \"b\" is never closed";
        QTest::newRow("mismatched close")
            << withFrontMatter("version: 1\nrequired: [a]\noptional: [b, c]\n", "{{#b}}\n{{#c}}\n{{/b}}\n{{/c}}\n{{a}}")
            << "a=1"
            << ""
            << "t:8: {{/b}} closes section \"c\" opened at line 7";
        QTest::newRow("stray close") << withFrontMatter(fm, "{{a}}{{b}}\n{{/b}}") << "a=1"
                                     << ""
                                     << "t:7: {{/b}} closes no open section";
        QTest::newRow("malformed placeholder") << withFrontMatter(fm, "{{a}}{{b}}\n{{ not a name }}") << "a=1"
                                               << ""
                                               << "t:7: malformed placeholder";
        QTest::newRow("no version") << withFrontMatter("required: [a]\n", "{{a}}") << "a=1"
                                    << ""
                                    << "t:1: front matter lacks `version:`";
        QTest::newRow("bad version") << withFrontMatter("version: one\n", "x") << ""
                                     << ""
                                     << "t:2: `version` must be an integer";
        QTest::newRow("both required and optional")
            << withFrontMatter("version: 1\nrequired: [a]\noptional: [a]\n", "{{a}}") << "a=1"
            << ""
            << "\"a\" is both required and optional";
        QTest::newRow("unknown key") << withFrontMatter("version: 1\nrequird: [a]\n", "{{a}}") << "a=1"
                                     << ""
                                     << "t:3: unknown front matter key `requird`";
    }

    void templateLanguage()
    {
        QFETCH(QString, text);
        QFETCH(QString, values);
        QFETCH(QString, expected);
        QFETCH(QString, error);
        QHash<QString, QString> v;
        for (const QString& pair : values.split(';', Qt::SkipEmptyParts))
            v.insert(pair.section('=', 0, 0), pair.section('=', 1));
        QString message;
        const QString out = render(text, v, &message);
        if (error.isEmpty()) {
            QVERIFY2(message.isEmpty(), qPrintable(message));
            QCOMPARE(out, expected);
        } else {
            QVERIFY2(message.contains(error), qPrintable(message));
        }
    }

    void versionAndVariantRender()
    {
        auto t = PromptTemplate::parse(withFrontMatter("version: 7\nrequired: [n, list]\n", "{{n}}|{{list}}"),
                                       QStringLiteral("v"));
        QVERIFY(t.ok());
        QCOMPARE(t->version(), 7);
        QCOMPARE(t->name(), QStringLiteral("v"));
        auto out = t->render(QVariantMap{{"n", 42}, {"list", QStringList{"a", "b"}}});
        QVERIFY(out.ok());
        QCOMPARE(out.value(), QStringLiteral("42|a\nb"));
    }

    void libraryFolderErrors()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString& name, const QString& text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text.toUtf8());
        };
        for (const QString& n : PromptLibrary::standardNames())
            if (n != QLatin1String("no_code"))
                write(n + ".md", withFrontMatter("version: 2\n", "Hello"));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("lacks no_code.md"));
        auto lacking = PromptLibrary::load(dir.path());
        QVERIFY(!lacking.ok());
        QVERIFY2(lacking.error().message.contains("lacks no_code.md"), qPrintable(lacking.error().message));

        write("no_code.md", withFrontMatter("version: 2\n", "{{oops}}"));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("no_code.md: unknown placeholder"));
        auto broken = PromptLibrary::load(dir.path());
        QVERIFY(!broken.ok());
        QVERIFY2(broken.error().message.contains("no_code.md") && broken.error().message.contains("oops"),
                 qPrintable(broken.error().message));

        write("no_code.md", withFrontMatter("version: 2\n", "Nothing to fill"));
        auto good = PromptLibrary::load(dir.path());
        QVERIFY(good.ok());
        QCOMPARE(good->versionString(), QStringLiteral("implement@2 no_code@2 optimise@2 repair@2 system@2"));
        QVERIFY(good->contentHash() != m_lib.contentHash());
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("does not exist"));
        QVERIFY(!PromptLibrary::load(dir.filePath("missing")).ok());
    }
};

QTEST_GUILESS_MAIN(TestPrompts)
#include "test_prompts.moc"
