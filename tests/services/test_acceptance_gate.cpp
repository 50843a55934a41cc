// The acceptance gate on solution decisions: every rule alone (pure), then on a real store with the shipped H200
// demonstrations and verdicts recorded here: a plain accept, each unmet rule refused with its id named, an override
// that needs a written reason and is recorded in the review row and the audit entry; the queue's fields and
// filters; Fix & Accept's linked solution; re-verify keeps the old verdict beside the new one.
#include "../common/SolutionFixture.h"
#include "services/AcceptanceGate.h"
#include "services/SolutionReviewService.h"
#include "store/Database.h"

#include <QtTest>

using namespace km;

namespace {
QStringList ids(const QList<GateRule>& rules)
{
    return gateRuleIdsOf(rules);
}

const SolutionListing* find(const QList<SolutionListing>& list, qint64 id)
{
    for (const SolutionListing& l : list)
        if (l.id == id)
            return &l;
    return nullptr;
}
}  // namespace

class TestAcceptanceGate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Only a PASSED verdict's speedup is claimed (the queue and `solutions list` show it); the timed figure is kept.
    void onlyAPassedVerdictsSpeedupIsCredited()
    {
        SolutionListing l;
        l.latestSpeedup = 179.09;
        l.latestStatus = QStringLiteral("INCORRECT_NUMERICAL");
        QVERIFY(!l.creditedSpeedup());
        l.latestStatus = QStringLiteral("REWARD_HACK");
        QVERIFY(!l.creditedSpeedup());
        l.latestStatus = QStringLiteral("PASSED");
        QCOMPARE(l.creditedSpeedup(), std::optional<double>(179.09));
        l.latestSpeedup.reset();
        QVERIFY(!l.creditedSpeedup());
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCOMPARE(harnessVersion(), QStringLiteral("1.0.0"));  // the demonstrations' harness is the current one
    }

    void eachRuleAlone()
    {
        const QString current = QStringLiteral("1.0.0");
        QCOMPARE(ids(unmetGateRules(std::optional<Verdict>(), current)), QStringList{"verdict"});
        QVERIFY(unmetGateRules(test::gpuPassedVerdict(), current).isEmpty());
        Verdict wrong = test::gpuPassedVerdict();
        wrong.status = VerdictStatus::IncorrectNumerical;
        QCOMPARE(ids(unmetGateRules(wrong, current)), QStringList{"passed"});
        QVERIFY(unmetGateRules(wrong, current).first().message.contains(QLatin1String("INCORRECT_NUMERICAL")));
        QCOMPARE(ids(unmetGateRules(test::cpuPassedVerdict(), current)), QStringList{"gpu"});
        Verdict noDevice = test::gpuPassedVerdict();
        noDevice.evidence.clear();
        QCOMPARE(ids(unmetGateRules(noDevice, current)), QStringList{"gpu"});
        QCOMPARE(ids(unmetGateRules(test::errorFindingVerdict(), current)), QStringList{"findings"});
        Verdict warningOnly = test::gpuPassedVerdict();
        warningOnly.findings = {{QStringLiteral("timing.noisy"), Finding::Severity::Warning, 0, QStringLiteral("n")}};
        QVERIFY(unmetGateRules(warningOnly, current).isEmpty());
        QCOMPARE(ids(unmetGateRules(test::oldHarnessVerdict(), current)), QStringList{"harness"});
        QVERIFY(unmetGateRules(test::oldHarnessVerdict(), current).first().message.contains(QLatin1String("0.9.0")));
        Verdict all = test::errorFindingVerdict();
        all.status = VerdictStatus::RewardHack;
        all.evidence = {{QStringLiteral("device"), QStringLiteral("cpu")}};
        all.harnessVersion = QStringLiteral("0.1");
        QCOMPARE(ids(unmetGateRules(all, current)), (QStringList{"passed", "gpu", "findings", "harness"}));
    }

    void theDemonstrationsAreListedWithTheirGate()
    {
        auto store = test::solutionStore(m_dir, QStringLiteral("demo.sqlite"));
        QVERIFY(store);
        SolutionReviewService service(store->database());
        auto list = service.list();
        QVERIFY2(list, list ? "" : qPrintable(list.error().message));
        QVERIFY(list->size() >= 6);
        int plain = 0;
        int compileErrors = 0;
        for (const SolutionListing& l : list.value()) {
            QCOMPARE(l.origin, QStringLiteral("agent"));  // the demonstrations' steps made them
            QCOMPARE(l.harnessVersion, QStringLiteral("1.0.0"));
            if (l.latestStatus == QLatin1String("PASSED")) {
                QCOMPARE(l.gpuName, QStringLiteral("NVIDIA H200"));
                QCOMPARE(l.device, QStringLiteral("cuda"));
                QVERIFY(l.latestSpeedup.has_value());
                if (l.unmetGate.isEmpty())
                    ++plain;
            } else {
                QVERIFY(ids(l.unmetGate).contains(QStringLiteral("passed")));
            }
            if (l.latestStatus == QLatin1String("COMPILE_ERROR"))
                ++compileErrors;
        }
        QVERIFY(plain >= 1);
        QVERIFY(compileErrors >= 1);
        // The queue's gate agrees with the one decide() applies (the full verdict decoded).
        for (const SolutionListing& l : list.value())
            QCOMPARE(ids(service.gate(l.id).value()), ids(l.unmetGate));
    }

    void acceptingNeedsTheGateOrAWrittenOverride()
    {
        auto store = test::solutionStore(m_dir, QStringLiteral("decide.sqlite"));
        QVERIFY(store);
        SolutionReviewService service(store->database());
        const qint64 good = test::recordSolution(*store, QStringLiteral("good"), test::gpuPassedVerdict(3.0));
        const qint64 cpu = test::recordSolution(*store, QStringLiteral("cpu"), test::cpuPassedVerdict());
        const qint64 old = test::recordSolution(*store, QStringLiteral("old"), test::oldHarnessVerdict());
        const qint64 hack = test::recordSolution(*store, QStringLiteral("hack"), test::errorFindingVerdict());
        Verdict wrongV = test::gpuPassedVerdict();
        wrongV.status = VerdictStatus::IncorrectNumerical;
        const qint64 wrong = test::recordSolution(*store, QStringLiteral("wrong"), wrongV);
        auto unverified = VerdictStore(store->database())
                              .addSolution(QStringLiteral("leaky-relu"), QStringLiteral("none"),
                                           QStringLiteral("manual"), QStringLiteral("t"));
        QVERIFY(good && cpu && old && hack && wrong && unverified);

        auto plain = service.decide(good, ReviewStatus::Accepted, QStringLiteral("ana"));
        QVERIFY2(plain, plain ? "" : qPrintable(plain.error().message));
        QVERIFY(!plain->isOverride());

        const QList<std::pair<qint64, QString>> refused{{cpu, QStringLiteral("not on a GPU")},
                                                        {old, QStringLiteral("harness 0.9.0")},
                                                        {hack, QStringLiteral("error finding")},
                                                        {wrong, QStringLiteral("INCORRECT_NUMERICAL")},
                                                        {unverified->id, QStringLiteral("no verdict")}};
        for (const auto& [id, words] : refused) {
            auto r = service.decide(id, ReviewStatus::Accepted, QStringLiteral("ana"));
            QVERIFY(!r);
            QCOMPARE(r.error().code, ErrorCode::Conflict);
            QVERIFY2(r.error().message.contains(words), qPrintable(r.error().message));
            QCOMPARE(toString(service.status(id).value()), toString(ReviewStatus::Draft));
            QVERIFY(service.history(id)->isEmpty());
        }
        // An override needs words; blank ones are refused and write nothing.
        auto blank = service.decide(cpu, ReviewStatus::Accepted, QStringLiteral("ana"), QStringLiteral("  "), {}, true);
        QCOMPARE(blank.error().code, ErrorCode::InvalidInput);
        QVERIFY(service.history(cpu)->isEmpty());

        auto over = service.decide(cpu, ReviewStatus::Accepted, QStringLiteral("ana"), {},
                                   QStringLiteral("the GPU box is down; CPU result is exact"), true);
        QVERIFY2(over, over ? "" : qPrintable(over.error().message));
        QCOMPARE(over->overriddenRules, QStringList{"gpu"});
        const auto history = service.history(cpu).value();
        QCOMPARE(history.size(), 1);
        QCOMPARE(history.first().overriddenRules, QStringList{"gpu"});
        QCOMPARE(history.first().comment, QStringLiteral("the GPU box is down; CPU result is exact"));
        auto audit = store->audit(QStringLiteral("solution"), QString::number(cpu));
        QVERIFY(audit);
        QVERIFY(std::any_of(audit->cbegin(), audit->cend(), [](const AuditEntry& e) {
            return e.action == QLatin1String("status") &&
                   e.detail.value(QStringLiteral("override")).toStringList() == QStringList{"gpu"};
        }));
        auto many = service.decide(wrong, ReviewStatus::Accepted, QStringLiteral("bo"), QStringLiteral("R5"), {}, true);
        QVERIFY(many);
        QCOMPARE(many->overriddenRules, QStringList{"passed"});
        // Rejecting needs no gate; an override flag on a solution that meets it records nothing.
        QVERIFY(service.decide(hack, ReviewStatus::Rejected, QStringLiteral("ana"), QStringLiteral("R2")));
        const qint64 good2 = test::recordSolution(*store, QStringLiteral("good2"), test::gpuPassedVerdict());
        auto needless =
            service.decide(good2, ReviewStatus::Accepted, QStringLiteral("ana"), QStringLiteral("x"), {}, true);
        QVERIFY(needless);
        QVERIFY(!needless->isOverride());
    }

    void theQueueFilters()
    {
        auto store = test::solutionStore(m_dir, QStringLiteral("filters.sqlite"));
        QVERIFY(store);
        SolutionReviewService service(store->database());
        const qint64 agent = test::recordSolution(*store, QStringLiteral("a"), test::gpuPassedVerdict(), "import");
        const qint64 cpu = test::recordSolution(*store, QStringLiteral("c"), test::cpuPassedVerdict());
        QVERIFY(service.decide(cpu, ReviewStatus::NeedsChanges, QStringLiteral("cy"), QStringLiteral("R1")));
        const int all = int(service.list()->size());

        SolutionFilter byOrigin;
        byOrigin.origins = {QStringLiteral("import")};
        auto agents = service.list(byOrigin).value();
        QCOMPARE(agents.size(), 1);
        QCOMPARE(agents.first().id, agent);
        SolutionFilter byReviewer;
        byReviewer.reviewer = QStringLiteral("cy");
        auto cys = service.list(byReviewer).value();
        QCOMPARE(cys.size(), 1);
        QCOMPARE(cys.first().id, cpu);
        QCOMPARE(cys.first().lastReviewer, QStringLiteral("cy"));
        QCOMPARE(ids(cys.first().unmetGate), QStringList{"gpu"});
        QVERIFY(cys.first().gpuName.isEmpty());
        SolutionFilter byStatus;
        byStatus.reviewStatuses = {ReviewStatus::NeedsChanges};
        QCOMPARE(service.list(byStatus)->size(), 1);
        SolutionFilter byVerdict;
        byVerdict.verdictStatuses = {QStringLiteral("COMPILE_ERROR")};
        auto compile = service.list(byVerdict).value();
        QVERIFY(!compile.isEmpty());
        for (const SolutionListing& l : compile)
            QCOMPARE(l.latestStatus, QStringLiteral("COMPILE_ERROR"));
        SolutionFilter byTask;
        byTask.taskId = QStringLiteral("leaky-relu");
        const auto leaky = service.list(byTask).value();
        QVERIFY(leaky.size() >= 2 && leaky.size() < all);
        for (const SolutionListing& l : leaky)
            QCOMPARE(l.taskId, QStringLiteral("leaky-relu"));
        SolutionFilter combined = byTask;
        combined.origins = {QStringLiteral("manual")};
        combined.verdictStatuses = {QStringLiteral("PASSED")};
        auto one = service.list(combined).value();
        QCOMPARE(one.size(), 1);
        QCOMPARE(one.first().id, cpu);
    }

    void fixAndAcceptMakesALinkedSolutionAndReverifyKeepsTheOldVerdict()
    {
        auto store = test::solutionStore(m_dir, QStringLiteral("fix.sqlite"));
        QVERIFY(store);
        SolutionReviewService service(store->database());
        Verdict wrongV = test::gpuPassedVerdict();
        wrongV.status = VerdictStatus::IncorrectNumerical;
        const qint64 parent = test::recordSolution(*store, QStringLiteral("slope = 0.5"), wrongV, "agent");
        QVERIFY(parent);
        QCOMPARE(service.addFix(parent, QStringLiteral("slope = 0.5"), QStringLiteral("ana")).error().code,
                 ErrorCode::InvalidInput);
        QCOMPARE(service.addFix(parent, QStringLiteral("  "), QStringLiteral("ana")).error().code,
                 ErrorCode::InvalidInput);
        QCOMPARE(service.addFix(4242, QStringLiteral("x"), QStringLiteral("ana")).error().code, ErrorCode::NotFound);
        auto fixed = service.addFix(parent, QStringLiteral("slope = s"), QStringLiteral("ana"));
        QVERIFY2(fixed, fixed ? "" : qPrintable(fixed.error().message));
        QCOMPARE(fixed->origin, QStringLiteral("manual"));
        QCOMPARE(fixed->taskId, QStringLiteral("leaky-relu"));
        const SolutionListing* listed = find(service.list().value(), fixed->id);
        QVERIFY(listed);
        QCOMPARE(listed->parentId, parent);
        QCOMPARE(ids(listed->unmetGate), QStringList{"verdict"});
        QVERIFY(VerdictStore(store->database()).addVerdict(fixed->id, test::gpuPassedVerdict(), QStringLiteral("t")));
        QVERIFY(service.decide(fixed->id, ReviewStatus::Accepted, QStringLiteral("ana")));

        // Re-verify the parent: a new verdict beside the old one; the gate reads the newest.
        QVERIFY(VerdictStore(store->database()).addVerdict(parent, test::gpuPassedVerdict(1.5), QStringLiteral("t")));
        auto detail = service.detail(parent);
        QVERIFY2(detail, detail ? "" : qPrintable(detail.error().message));
        QCOMPARE(detail->verdicts.size(), 2);
        QCOMPARE(toString(detail->verdicts.at(0).status), toString(VerdictStatus::Passed));
        QCOMPARE(toString(detail->verdicts.at(1).status), toString(VerdictStatus::IncorrectNumerical));
        QVERIFY(detail->unmetGate.isEmpty());
        QCOMPARE(service.detail(fixed->id)->parentId, parent);
        QCOMPARE(service.detail(fixed->id)->history.size(), 1);
        QCOMPARE(service.detail(4242).error().code, ErrorCode::NotFound);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestAcceptanceGate)
#include "test_acceptance_gate.moc"
