// The CUDA guidance library: the real notes in resources/guidance (valid, unique, in the category vocabulary, of
// the agreed length), the selection over them and over fixtures, and errors that name the file and line.
#include "agent/Guidance.h"
#include "model/Task.h"
#include "model/Verdict.h"
#include "util/Resources.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace km;

namespace {

const QString kRealDir = QDir::cleanPath(QStringLiteral(KMOSAIC_TASKS_DIR "/../resources/guidance"));
const QString kFixtures = QStringLiteral(KMOSAIC_TEST_DATA "/guidance");

QStringList ids(const QList<GuidanceNote>& notes)
{
    QStringList out;
    for (const GuidanceNote& n : notes)
        out << n.id;
    return out;
}

QStringList split(const QString& s)
{
    return s.split(QLatin1Char(','), Qt::SkipEmptyParts);
}

}  // namespace

class TestGuidance : public QObject {
    Q_OBJECT

    GuidanceLibrary m_real;

private Q_SLOTS:
    void initTestCase()
    {
        auto lib = GuidanceLibrary::load(kRealDir);
        QVERIFY2(lib.ok(), qPrintable(lib.ok() ? QString() : lib.error().message));
        m_real = lib.value();
    }

    void realLibraryIsValid()
    {
        QVERIFY(m_real.notes().size() >= 15);
        const QStringList files = QDir(kRealDir).entryList({QStringLiteral("*.md")}, QDir::Files);
        QCOMPARE(m_real.notes().size(), files.size() - (files.contains(QStringLiteral("README.md")) ? 1 : 0));
        QSet<QString> seen;
        for (const GuidanceNote& n : m_real.notes()) {
            QVERIFY2(!seen.contains(n.id), qPrintable(n.id));
            seen.insert(n.id);
            QVERIFY2(!n.title.isEmpty() && !n.body.isEmpty(), qPrintable(n.id));
            QVERIFY2(n.priority >= 1 && n.priority <= 5, qPrintable(n.id));
            for (const QString& c : n.categories)
                QVERIFY2(c == QLatin1String("any") || knownCategories().contains(c), qPrintable(n.id + ": " + c));
            for (const QString& s : n.stages)
                QVERIFY2(GuidanceLibrary::stageNames().contains(s), qPrintable(n.id + ": " + s));
            for (const QString& f : n.failures)
                QVERIFY2(verdictStatusFromString(f) || f.contains(QLatin1Char('.')), qPrintable(n.id + ": " + f));
            QFile file(n.file);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const int lines = int(file.readAll().count('\n'));
            QVERIFY2(lines >= 15 && lines <= 40, qPrintable(QStringLiteral("%1: %2 lines").arg(n.id).arg(lines)));
        }
    }

    // Every category a task can have (but the catch-all) has at least one note written for it.
    void everyCategoryIsCovered()
    {
        for (const QString& c : knownCategories()) {
            if (c == QLatin1String("other"))
                continue;
            const bool covered = std::any_of(m_real.notes().cbegin(), m_real.notes().cend(),
                                             [&](const GuidanceNote& n) { return n.categories.contains(c); });
            QVERIFY2(covered, qPrintable(c));
        }
    }

    void bundledLibraryIsFound()
    {
        if (!qEnvironmentVariableIsEmpty("KMOSAIC_RESOURCES_DIR"))
            QSKIP("KMOSAIC_RESOURCES_DIR is set: the lookup is overridden");
        QCOMPARE(QDir::cleanPath(resourcePath(QStringLiteral("guidance"))), kRealDir);
        auto lib = GuidanceLibrary::loadDefault();
        QVERIFY(lib.ok());
        QCOMPARE(lib->contentHash(), m_real.contentHash());
    }

    void realSelection_data()
    {
        QTest::addColumn<QString>("categories");
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("checks");
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("inTop3");  // empty: no condition
        QTest::addColumn<QString>("never");   // a note that must not be chosen at all

        QTest::newRow("compile error") << "softmax"
                                       << "repair"
                                       << "COMPILE_ERROR"
                                       << ""
                                       << "common-build-errors"
                                       << ""
                                       << "warp-shuffle-reductions";
        QTest::newRow("side stream") << "reduction"
                                     << "repair"
                                     << "REWARD_HACK"
                                     << "runtime.side_stream"
                                     << "stream-correctness"
                                     << "integrity-rules"
                                     << "";
        QTest::newRow("static streams") << "gemm"
                                        << "repair"
                                        << "REWARD_HACK"
                                        << "static.streams"
                                        << "stream-correctness"
                                        << ""
                                        << "";
        QTest::newRow("try fallback") << "softmax"
                                      << "repair"
                                      << "REWARD_HACK"
                                      << "static.try_fallback"
                                      << "integrity-rules"
                                      << ""
                                      << "";
        QTest::newRow("reduction optimise") << "reduction"
                                            << "optimise"
                                            << ""
                                            << ""
                                            << "warp-shuffle-reductions"
                                            << "vectorised-access"
                                            << "common-build-errors";
        QTest::newRow("softmax implement") << "softmax"
                                           << "implement"
                                           << ""
                                           << ""
                                           << "online-softmax"
                                           << "warp-shuffle-reductions"
                                           << "scans-cumsum";
        QTest::newRow("scan implement") << "scan"
                                        << "implement"
                                        << ""
                                        << ""
                                        << "scans-cumsum"
                                        << ""
                                        << "online-softmax";
        QTest::newRow("gemm optimise") << "fused,gemm,activation"
                                       << "optimise"
                                       << ""
                                       << ""
                                       << "shared-memory-tiling"
                                       << "elementwise-fusion"
                                       << "scans-cumsum";
        QTest::newRow("nonfinite softmax") << "softmax"
                                           << "repair"
                                           << "INCORRECT_NUMERICAL"
                                           << "correctness.nonfinite"
                                           << "correctness-debugging"
                                           << "online-softmax"
                                           << "";
        QTest::newRow("numerical normalization") << "normalization"
                                                 << "repair"
                                                 << "INCORRECT_NUMERICAL"
                                                 << ""
                                                 << "correctness-debugging"
                                                 << "numerics-accumulation"
                                                 << "";
        QTest::newRow("uncategorised task") << "other"
                                            << "implement"
                                            << ""
                                            << ""
                                            << "integrity-rules"
                                            << "load-inline-skeleton"
                                            << "shared-memory-tiling";
    }

    void realSelection()
    {
        QFETCH(QString, categories);
        QFETCH(QString, stage);
        QFETCH(QString, status);
        QFETCH(QString, checks);
        QFETCH(QString, first);
        QFETCH(QString, inTop3);
        QFETCH(QString, never);
        const GuidanceQuery q{split(categories), stage, status, split(checks)};
        const QStringList chosen = ids(m_real.select(q, 5));
        QVERIFY2(!chosen.isEmpty(), "nothing selected");
        QCOMPARE(chosen.first(), first);
        if (!inTop3.isEmpty())
            QVERIFY2(chosen.mid(0, 3).contains(inTop3), qPrintable(chosen.join(' ')));
        if (!never.isEmpty())
            QVERIFY2(!ids(m_real.select(q, 100)).contains(never), qPrintable(never));
        QVERIFY(m_real.select(q, 2).size() <= 2);
        QCOMPARE(ids(m_real.select(q, 2)), chosen.mid(0, 2));  // a prefix: the order does not depend on max
        QVERIFY(m_real.select(q, 0).isEmpty());
    }

    void fixtureRanking_data()
    {
        QTest::addColumn<QString>("categories");
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("checks");
        QTest::addColumn<QString>("expected");

        // Specific category over "any"; then priority; a tie on everything else goes to the smaller id.
        QTest::newRow("category, priority, id") << "reduction"
                                                << "implement"
                                                << ""
                                                << ""
                                                << "beta-specific,aaa-tie,alpha-any";
        QTest::newRow("other category excluded") << "gemm"
                                                 << "implement"
                                                 << ""
                                                 << ""
                                                 << "zeta-other,aaa-tie,alpha-any";
        // A fired check outranks a status; both outrank the stage.
        QTest::newRow("check over status") << "reduction"
                                           << "repair"
                                           << "COMPILE_ERROR"
                                           << "runtime.side_stream"
                                           << "delta-check,gamma-failure";
        QTest::newRow("failure outside stage") << "reduction"
                                               << "implement"
                                               << "COMPILE_ERROR"
                                               << ""
                                               << "gamma-failure,beta-specific,aaa-tie,alpha-any";
        QTest::newRow("nothing for the stage") << "reduction"
                                               << "optimise"
                                               << ""
                                               << ""
                                               << "";
        QTest::newRow("no category") << ""
                                     << "implement"
                                     << ""
                                     << ""
                                     << "aaa-tie,alpha-any";
    }

    void fixtureRanking()
    {
        QFETCH(QString, categories);
        QFETCH(QString, stage);
        QFETCH(QString, status);
        QFETCH(QString, checks);
        QFETCH(QString, expected);
        auto lib = GuidanceLibrary::load(kFixtures + QStringLiteral("/valid"));
        QVERIFY2(lib.ok(), qPrintable(lib.ok() ? QString() : lib.error().message));
        QCOMPARE(lib->notes().size(), 6);  // README.md is not a note
        QCOMPARE(ids(lib->select({split(categories), stage, status, split(checks)}, 10)).join(','), expected);
    }

    void malformedFolders_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("what");
        QTest::newRow("unclosed list") << "malformed-list"
                                       << "bad.md:4:"
                                       << "not closed";
        QTest::newRow("unknown category") << "unknown-category"
                                          << "note.md:4:"
                                          << "unknown category \"reductions\"";
        QTest::newRow("duplicate id") << "duplicate-id"
                                      << "two.md:1:"
                                      << "already used by";
        QTest::newRow("front matter never closed") << "unclosed"
                                                   << "note.md:8:"
                                                   << "expected `key: value`";
        QTest::newRow("no folder") << "does-not-exist"
                                   << "does-not-exist"
                                   << "does not exist";
    }

    void malformedFolders()
    {
        QFETCH(QString, folder);
        QFETCH(QString, where);
        QFETCH(QString, what);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QRegularExpression::escape(where)));  // logged once
        auto lib = GuidanceLibrary::load(kFixtures + QLatin1Char('/') + folder);
        QVERIFY(!lib.ok());
        QVERIFY2(lib.error().message.contains(where), qPrintable(lib.error().message));
        QVERIFY2(lib.error().message.contains(what), qPrintable(lib.error().message));
    }

    void malformedNotes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const QString ok =
            "---\nid: n\ntitle: T\ncategories: [any]\nstages: [repair]\nfailures: []\npriority: 2\n---\nB\n";
        QTest::newRow("valid") << ok << "";
        QTest::newRow("comments allowed") << QString(ok).replace("[any]", "[any]   # all tasks") << "";
        QTest::newRow("crlf") << QString(ok).replace("\n", "\r\n") << "";
        QTest::newRow("no front matter") << "# Title\nbody\n"
                                         << "n.md:1: expected a front matter block";
        QTest::newRow("priority range") << QString(ok).replace("priority: 2", "priority: 9") << "n.md:7: `priority`";
        QTest::newRow("priority text") << QString(ok).replace("priority: 2", "priority: high") << "n.md:7:";
        QTest::newRow("missing key") << QString(ok).replace("priority: 2\n", "") << "lacks `priority:`";
        QTest::newRow("unknown key") << QString(ok).replace("title: T", "titel: T")
                                     << "n.md:3: unknown front matter key `titel`";
        QTest::newRow("duplicate key") << QString(ok).replace("title: T", "id: m") << "n.md:3: `id` given twice";
        QTest::newRow("scalar for list") << QString(ok).replace("[any]", "any")
                                         << "n.md:4: `categories` must be a list";
        QTest::newRow("unknown stage") << QString(ok).replace("[repair]", "[fix]") << "n.md:5: unknown stage \"fix\"";
        QTest::newRow("status typo") << QString(ok).replace("failures: []", "failures: [COMPILE_ERR]")
                                     << "n.md:6: \"COMPILE_ERR\" is neither";
        QTest::newRow("empty body") << QString(ok).replace("---\nB\n", "---\n\n") << "n.md:9: the note has no text";
        QTest::newRow("bad id") << QString(ok).replace("id: n", "id: Bad Id") << "n.md:2: id \"Bad Id\"";
        QTest::newRow("empty list item") << QString(ok).replace("[any]", "[any, ]") << "n.md:4: empty item";
    }

    void malformedNotes()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        auto note = GuidanceLibrary::parseNote(text, QStringLiteral("n.md"));
        if (expected.isEmpty()) {
            QVERIFY2(note.ok(), qPrintable(note.ok() ? QString() : note.error().message));
            QCOMPARE(note->categories, QStringList{"any"});
            QCOMPARE(note->body, QStringLiteral("B"));
            return;
        }
        QVERIFY(!note.ok());
        QCOMPARE(note.error().code, ErrorCode::InvalidInput);
        QVERIFY2(note.error().message.contains(expected), qPrintable(note.error().message));
    }

    void versionAndFormat()
    {
        auto again = GuidanceLibrary::load(kRealDir);
        QVERIFY(again.ok());
        QCOMPARE(again->contentHash(), m_real.contentHash());
        QCOMPARE(m_real.contentHash().size(), 64);
        QVERIFY(QRegularExpression("^guidance:\\d+:[0-9a-f]{12}$").match(m_real.version()).hasMatch());
        auto fixtures = GuidanceLibrary::load(kFixtures + QStringLiteral("/valid"));
        QVERIFY(fixtures.ok());
        QVERIFY(fixtures->contentHash() != m_real.contentHash());

        const GuidanceNote* n = m_real.find(QStringLiteral("warp-shuffle-reductions"));
        QVERIFY(n);
        QVERIFY(!m_real.find(QStringLiteral("no-such-note")));
        const QString text = formatGuidance({*n, *m_real.find(QStringLiteral("online-softmax"))});
        QVERIFY(text.startsWith("### " + n->title + "\n\n" + n->body.left(20)));
        QVERIFY(text.contains("\n\n### "));
        QVERIFY(!text.contains("priority:"));
    }
};

QTEST_GUILESS_MAIN(TestGuidance)
#include "test_guidance.moc"
