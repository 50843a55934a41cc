// The launch dialog: its fields make the LaunchSettings (and show them back), the "N runs will start; at most T
// tokens" line follows the budgets, OK refuses bad values with the message beside the field, and the last settings
// used come back from QSettings.
#include "agent/LaunchDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::ui;

namespace {
QList<Task> tasks(int n)
{
    QList<Task> out;
    for (int i = 0; i < n; ++i) {
        Task t;
        t.id = QStringLiteral("task-%1").arg(i);
        t.reference = QStringLiteral("import torch\n");
        out << t;
    }
    return out;
}

template <typename W> W* field(QDialog& d, const QString& name)
{
    W* w = d.findChild<W*>(name);
    if (!w)
        qWarning() << "no field" << name;
    return w;
}
}  // namespace

class TestLaunchDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fieldsMakeTheSettings()
    {
        LaunchDialog d(tasks(3), {QStringLiteral("local-vllm"), QStringLiteral("openai")}, LaunchSettings{});
        QCOMPARE(d.objectName(), QStringLiteral("launchDialog"));
        auto* source = field<QComboBox>(d, "provider");
        source->setCurrentIndex(source->findData(QStringLiteral("openai")));
        field<QLineEdit>(d, "model")->setText(QStringLiteral("gpt-x"));
        field<QDoubleSpinBox>(d, "temperature")->setValue(0.4);
        field<QDoubleSpinBox>(d, "top_p")->setValue(0.95);
        field<QSpinBox>(d, "max_tokens")->setValue(1024);
        field<QSpinBox>(d, "seed")->setValue(7);
        field<QSpinBox>(d, "run.turns")->setValue(10);
        field<QSpinBox>(d, "run.tokens")->setValue(200000);
        field<QDoubleSpinBox>(d, "run.minutes")->setValue(20);
        field<QSpinBox>(d, "repair.turns")->setValue(3);
        field<QSpinBox>(d, "optimise.tokens")->setValue(90000);
        field<QDoubleSpinBox>(d, "implement.minutes")->setValue(5);
        field<QDoubleSpinBox>(d, "target_speedup")->setValue(1.5);
        field<QSpinBox>(d, "plateau")->setValue(2);
        field<QSpinBox>(d, "concurrency")->setValue(2);
        field<QCheckBox>(d, "taskDefaults")->setChecked(false);
        field<QCheckBox>(d, "show.description")->setChecked(true);
        field<QCheckBox>(d, "show.reference")->setChecked(true);
        auto* device = field<QComboBox>(d, "device");
        device->setCurrentIndex(device->findData(QStringLiteral("cuda")));
        field<QLineEdit>(d, "configs")->setText(QStringLiteral("small, large"));
        field<QSpinBox>(d, "seeds")->setValue(4);
        field<QSpinBox>(d, "timing_runs")->setValue(30);
        field<QCheckBox>(d, "ncu")->setChecked(true);
        auto* where = field<QComboBox>(d, "where");
        where->setCurrentIndex(where->findData(QStringLiteral("gpus")));
        field<QLineEdit>(d, "gpus")->setText(QStringLiteral("1"));

        const LaunchSettings s = d.settings();
        QCOMPARE(int(s.source), int(LaunchSettings::Source::Provider));
        QCOMPARE(s.provider, QStringLiteral("openai"));
        QCOMPARE(s.model, QStringLiteral("gpt-x"));
        QCOMPARE(s.sampling.temperature, std::optional<double>(0.4));
        QCOMPARE(s.sampling.topP, std::optional<double>(0.95));
        QCOMPARE(s.sampling.maxTokens, std::optional<int>(1024));
        QCOMPARE(s.sampling.seed, std::optional<qint64>(7));
        QCOMPARE(s.budgets.run.turns, 10);
        QCOMPARE(s.budgets.run.tokens, qint64(200000));
        QCOMPARE(s.budgets.run.minutes, 20.0);
        QCOMPARE(s.budgets.repair.turns, 3);
        QCOMPARE(s.budgets.optimise.tokens, qint64(90000));
        QCOMPARE(s.budgets.implement.minutes, 5.0);
        QCOMPARE(s.budgets.targetSpeedup, 1.5);
        QCOMPARE(s.budgets.plateau, 2);
        QCOMPARE(s.concurrency, 2);
        QVERIFY(s.presentation);
        QCOMPARE(s.presentation->bits(), (PresentationSet{Presentation::Description, Presentation::Reference}).bits());
        QCOMPARE(s.device, QStringLiteral("cuda"));
        QCOMPARE(s.configs, (QStringList{"small", "large"}));
        QCOMPARE(s.seeds, 4);
        QCOMPARE(s.timingRuns, 30);
        QVERIFY(s.ncu);
        QCOMPARE(int(s.where), int(LaunchSettings::Where::Gpus));
        QCOMPARE(s.gpus, QStringLiteral("1"));
        QVERIFY(s.validate().isEmpty());

        // Shown back by a new dialog exactly.
        LaunchDialog again(tasks(1), {QStringLiteral("local-vllm"), QStringLiteral("openai")}, s);
        QCOMPARE(again.settings().toVariant(), s.toVariant());

        // Unset sampling reads as unset; the manual agent has no provider.
        LaunchDialog defaults(tasks(1), {}, LaunchSettings{});
        const LaunchSettings plain = defaults.settings();
        QVERIFY(!plain.sampling.temperature && !plain.sampling.topP && !plain.sampling.maxTokens &&
                !plain.sampling.seed);
        QCOMPARE(int(plain.source), int(LaunchSettings::Source::Manual));  // no provider saved: only the manual agent
        QVERIFY(!plain.presentation);
    }

    void summaryFollowsTheFields()
    {
        LaunchDialog d(tasks(4), {QStringLiteral("p")}, LaunchSettings{});
        QVERIFY2(d.summaryText().startsWith(QLatin1String("4 runs will start")), qPrintable(d.summaryText()));
        QVERIFY2(d.summaryText().contains(QLatin1String("not bounded")), qPrintable(d.summaryText()));
        field<QSpinBox>(d, "run.tokens")->setValue(50000);
        QCOMPARE(d.summaryText(), QStringLiteral("4 runs will start; at most 200000 tokens"));
        field<QSpinBox>(d, "run.tokens")->setValue(0);
        field<QSpinBox>(d, "implement.tokens")->setValue(1000);
        field<QSpinBox>(d, "repair.tokens")->setValue(2000);
        QVERIFY(d.summaryText().contains(QLatin1String("not bounded")));
        field<QSpinBox>(d, "optimise.tokens")->setValue(3000);
        QCOMPARE(d.summaryText(), QStringLiteral("4 runs will start; at most 24000 tokens"));
        LaunchDialog one(tasks(1), {}, LaunchSettings{});
        QVERIFY(one.summaryText().startsWith(QLatin1String("1 run will start")));
    }

    void okRefusesBadValuesBesideTheirFields()
    {
        LaunchDialog d(tasks(2), {QStringLiteral("p")}, LaunchSettings{});
        auto* source = field<QComboBox>(d, "provider");
        source->setCurrentIndex(source->count() - 1);  // the manual agent
        field<QSpinBox>(d, "concurrency")->setValue(3);
        field<QCheckBox>(d, "taskDefaults")->setChecked(false);  // and no presentation ticked
        field<QCheckBox>(d, "ncu")->setChecked(true);            // on the CPU
        auto* where = field<QComboBox>(d, "where");
        where->setCurrentIndex(where->findData(QStringLiteral("cpu")));
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Rejected));  // still open
        QVERIFY2(d.problemText("concurrency").contains(QLatin1String("one run at a time")),
                 qPrintable(d.problemText("concurrency")));
        QVERIFY(d.problemText("presentation").contains(QLatin1String("at least one")));
        QVERIFY(d.problemText("ncu").contains(QLatin1String("GPU")));
        QVERIFY(d.problemText("provider").isEmpty());
        QVERIFY(d.findChild<QWidget*>("problem.concurrency")->isVisibleTo(&d));

        field<QSpinBox>(d, "concurrency")->setValue(1);
        field<QCheckBox>(d, "taskDefaults")->setChecked(true);
        field<QCheckBox>(d, "ncu")->setChecked(false);
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QVERIFY(d.problemText("concurrency").isEmpty());
    }

    void lastSettingsComeBack()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("kmosaic.ini"), QSettings::IniFormat);
        QCOMPARE(lastLaunchSettings(settings).toVariant(), LaunchSettings{}.toVariant());
        LaunchSettings s;
        s.provider = QStringLiteral("p");
        s.budgets.run.tokens = 1234;
        s.concurrency = 5;
        s.presentation = PresentationSet{Presentation::Spec};
        saveLastLaunchSettings(settings, s);
        settings.sync();
        QSettings reread(dir.filePath("kmosaic.ini"), QSettings::IniFormat);
        QCOMPARE(lastLaunchSettings(reread).toVariant(), s.toVariant());
    }
};

QTEST_MAIN(TestLaunchDialog)
#include "test_launch_dialog.moc"
