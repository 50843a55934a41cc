#pragma once
// The workbench as the app builds it (store worker, controller, then window) over a store seeded from the bundled
// tasks, and helpers to answer the dialogs it opens and to wait for the worker's answers; for the UI tests.

#include "StoreWorkerWait.h"
#include "controller/WorkbenchController.h"
#include "curate/BundledTasks.h"
#include "models/TaskTableModel.h"
#include "services/ServiceHost.h"
#include "store/TaskStore.h"
#include "views/MainWindow.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDeadlineTimer>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <memory>

namespace km::test {

struct Workbench {
    std::unique_ptr<StoreWorker> worker;
    ui::WorkbenchController controller;
    ui::MainWindow window;
    // `services` (cpuServices) null: a workbench without agent services; else they must outlive it.
    Workbench(TaskStore& store, QSettings& settings, const QString& reviewer = QStringLiteral("tester"),
              ServiceHost* services = nullptr)
        : worker(openWorker(store.path()))
        , controller(*worker, reviewer, services)
        , window(controller, settings)
    {
        test::settle(*worker);  // the first list and task are on screen, as a user would first see them
    }
    bool settle() const { return test::settle(*worker); }
    QTableView* table() const { return window.findChild<QTableView*>(QStringLiteral("taskTable")); }
    QString tableTask() const { return table()->currentIndex().data(ui::TaskTableModel::TaskIdRole).toString(); }
    QStringList selectedTasks() const
    {
        QStringList ids;
        for (const QModelIndex& i : table()->selectionModel()->selectedRows())
            ids.append(i.data(ui::TaskTableModel::TaskIdRole).toString());
        return ids;
    }
};

// The services the workbench's main() starts, verifying on this machine's CPU with one plain worker, started and
// ready; null (with a warning naming why) when they could not be built.
inline std::unique_ptr<ServiceHost> cpuServices(const QString& storePath)
{
    ExecutorSettings cpu;
    cpu.device = QStringLiteral("cpu");
    cpu.singleWorker = true;
    auto host = std::make_unique<ServiceHost>(
        ServiceHost::Config{storePath, cpu, QStringLiteral("ana"), {}, harnessLaunch({})});
    QSignalSpy ready(host.get(), &ServiceHost::ready);
    host->start();
    if (!ready.wait(30000) || !ready.first().at(0).toBool()) {
        qWarning("the services did not start: %s",
                 qPrintable(ready.isEmpty() ? QStringLiteral("no answer in 30 s") : ready.first().at(1).toString()));
        return nullptr;
    }
    return host;
}

// A workbench with the CPU services (cpuServices), shown at 1280x720 and settled, as the agent-run tests use it;
// `bench` null when the services could not start.
struct ServedWorkbench {
    std::unique_ptr<ServiceHost> services;
    std::unique_ptr<Workbench> bench;
    ServedWorkbench(TaskStore& store, QSettings& settings, const QString& reviewer)
        : services(cpuServices(store.path()))
    {
        if (!services)
            return;
        bench = std::make_unique<Workbench>(store, settings, reviewer, services.get());
        bench->window.resize(1280, 720);
        bench->window.show();
        bench->settle();
    }
};

// The child of `window` named `name` once it is visible (a dialog opened from an answer of the store worker), within
// 20 s; null otherwise.
template <class T> T* visibleChild(QWidget& window, const char* name)
{
    T* child = nullptr;
    for (QDeadlineTimer deadline(20000); !deadline.hasExpired() && !(child && child->isVisible());) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        child = window.findChild<T*>(name);
    }
    return child && child->isVisible() ? child : nullptr;
}

inline std::unique_ptr<TaskStore> seededStore(const QTemporaryDir& dir, const QString& name = "ui.sqlite")
{
    auto s = TaskStore::open(dir.filePath(name));
    if (!s.ok())
        return nullptr;
    std::unique_ptr<TaskStore> store = std::move(s).value();
    auto seeded = seedIfEmpty(*store, QStringLiteral(KMOSAIC_TASKS_DIR), QStringLiteral("tester"));
    if (!seeded.ok() || !seeded.value().has_value())
        return nullptr;
    return store;
}

// A seeded store and a settings file (INI) in `dir`: what the workbench tests start from. False when the store could
// not be made.
inline bool openSeeded(const QTemporaryDir& dir, std::unique_ptr<TaskStore>& store,
                       std::unique_ptr<QSettings>& settings)
{
    if (!dir.isValid())
        return false;
    store = seededStore(dir);
    settings = std::make_unique<QSettings>(dir.filePath("settings.ini"), QSettings::IniFormat);
    return store != nullptr;
}

// Clicks `button` of the next modal message box, checked by object name, as soon as it shows (within 10 s): the
// question may come in this event-loop turn or a later one (a mouse click in QTest runs the loop first).
// Returns the watcher, stopped once it has answered (see answered()).
inline QPointer<QTimer> answerBox(const QString& objectName, QMessageBox::StandardButton button)
{
    auto* poll = new QTimer(qApp);
    auto* deadline = new QDeadlineTimer(10000);
    poll->setInterval(5);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, deadline, objectName, button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box && !deadline->hasExpired())
            return;
        poll->stop();
        poll->deleteLater();
        delete deadline;
        QVERIFY2(box && box->objectName() == objectName,
                 qPrintable("expected the question " + objectName + ", found " +
                            (QApplication::activeModalWidget() ? QApplication::activeModalWidget()->objectName()
                                                               : QString("no modal window"))));
        box->button(button)->click();
    });
    poll->start();
    return poll;
}

inline bool answered(const QPointer<QTimer>& watcher)
{
    return !watcher || !watcher->isActive();
}

}  // namespace km::test
