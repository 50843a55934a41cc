#include "views/MainWindow.h"

#include "jobs/TransferJob.h"
#include "models/TaskFilterProxyModel.h"
#include "models/TaskTableModel.h"
#include "review/ReviewPanel.h"
#include "review/ReviewSession.h"
#include "store/TaskStore.h"
#include "views/FilterPanel.h"
#include "views/ImportReportDialog.h"
#include "views/TaskDetailView.h"
#include "views/TaskEditor.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

namespace km::ui {

namespace {
QDockWidget* makeDock(QMainWindow* window, const QString& title, const QString& name, QWidget* content,
                      Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(name);  // saveState() keys docks by object name
    dock->setWidget(content);
    window->addDockWidget(area, dock);
    return dock;
}
}  // namespace

MainWindow::MainWindow(TaskStore& store, QSettings& settings, QWidget* parent)
    : QMainWindow(parent)
    , m_store(store)
    , m_settings(settings)
    , m_model(new TaskTableModel(this))
    , m_proxy(new TaskFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_detail(new TaskDetailView(this))
    , m_filters(new FilterPanel(this))
    , m_search(new QLineEdit(this))
    , m_searchDebounce(new QTimer(this))
    , m_review(new ReviewSession(store, defaultActor(), this))
    , m_reviewPanel(new ReviewPanel(*m_review, settings, this))
{
    setWindowTitle(tr("KernelMosaic Workbench — %1").arg(store.path()));
    m_proxy->setSourceTable(m_model);
    m_table->setObjectName(QStringLiteral("taskTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TaskTableModel::Id, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    // Fixed widths from the font: sizing columns to their contents would measure every row on every change.
    QHeaderView* header = m_table->horizontalHeader();
    const int em = m_table->fontMetrics().horizontalAdvance(QLatin1Char('m'));
    for (const auto& [column, chars] :
         {std::pair{TaskTableModel::Id, 22}, std::pair{TaskTableModel::Level, 4},
          std::pair{TaskTableModel::Categories, 16}, std::pair{TaskTableModel::Presentations, 5},
          std::pair{TaskTableModel::Status, 9}, std::pair{TaskTableModel::Reviewer, 8},
          std::pair{TaskTableModel::LastChange, 11}})
        header->resizeSection(column, chars * em);
    header->setSectionResizeMode(TaskTableModel::Title, QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);
    setCentralWidget(m_table);

    QDockWidget* filters =
        makeDock(this, tr("Filters"), QStringLiteral("filtersDock"), m_filters, Qt::LeftDockWidgetArea);
    QDockWidget* task = makeDock(this, tr("Task"), QStringLiteral("taskDock"), m_detail, Qt::RightDockWidgetArea);
    QDockWidget* review =
        makeDock(this, tr("Review"), QStringLiteral("reviewDock"), m_reviewPanel, Qt::RightDockWidgetArea);
    splitDockWidget(task, review, Qt::Vertical);
    resizeDocks({filters, task}, {220, 520}, Qt::Horizontal);  // first start; a saved layout overrides it
    resizeDocks({task, review}, {600, 300}, Qt::Vertical);

    m_search->setObjectName(QStringLiteral("searchBox"));
    m_search->setPlaceholderText(tr("Search titles, descriptions, specifications and code…"));
    m_search->setClearButtonEnabled(true);
    auto* bar = addToolBar(tr("Search"));
    bar->setObjectName(QStringLiteral("searchBar"));
    bar->addWidget(m_search);
    m_searchDebounce->setSingleShot(true);
    m_searchDebounce->setInterval(120);  // typing coalesces: the latest text wins
    connect(m_search, &QLineEdit::textChanged, m_searchDebounce, qOverload<>(&QTimer::start));
    connect(m_searchDebounce, &QTimer::timeout, this, &MainWindow::applySearch);
    connect(m_filters, &FilterPanel::facetsChanged, this, &MainWindow::filtersChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::showSelectedTask);
    connect(m_detail->editor(), &TaskEditor::saveRequested, this, &MainWindow::saveEdits);
    connect(m_detail->editor(), &TaskEditor::revertRequested, this, [this] { showTask(m_shownTaskId); });
    connect(m_detail, &TaskDetailView::shownChanged, this, &MainWindow::saveShown);
    buildMenus();
    connectReview();

    resize(1500, 900);
    restoreGeometry(m_settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(m_settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    reload();
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Import Task &Folders…"), this, [this] { chooseImport(TaskFormat::Folder); });
    file->addAction(tr("Import &KernelBench Checkout…"), this, [this] { chooseImport(TaskFormat::KernelBench); });
    file->addAction(tr("Import &JSONL…"), this, [this] { chooseImport(TaskFormat::Jsonl); });
    file->addSeparator();
    file->addAction(tr("&Export Visible Tasks as Folders…"), this, [this] { chooseExport(TaskFormat::Folder); });
    file->addAction(tr("Export Visible Tasks as JS&ONL…"), this, [this] { chooseExport(TaskFormat::Jsonl); });
    file->addSeparator();
    file->addAction(tr("&Reload"), QKeySequence::Refresh, this, &MainWindow::reload);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    menuBar()->addMenu(m_reviewPanel->menu());
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About KernelMosaic"), this, [this] {
        QMessageBox::about(this, tr("About KernelMosaic Workbench"),
                           tr("<b>KernelMosaic Workbench</b> %1<br>Curate CUDA tasks, verified kernels and agent "
                              "trajectories.<br>Store: %2")
                               .arg(QApplication::applicationVersion(), m_store.path().toHtmlEscaped()));
    });
}

void MainWindow::chooseImport(TaskFormat format)
{
    const QString path =
        format == TaskFormat::Jsonl
            ? QFileDialog::getOpenFileName(this, tr("Import JSONL"), {}, tr("JSON Lines (*.jsonl *.json)"))
            : QFileDialog::getExistingDirectory(this, format == TaskFormat::KernelBench ? tr("KernelBench checkout")
                                                                                        : tr("Task folder(s)"));
    if (!path.isEmpty())
        startImport(path, format);
}

void MainWindow::chooseExport(TaskFormat format)
{
    const QString out = format == TaskFormat::Jsonl
                            ? QFileDialog::getSaveFileName(this, tr("Export JSONL"), {}, tr("JSON Lines (*.jsonl)"))
                            : QFileDialog::getExistingDirectory(this, tr("Export into folder"));
    if (!out.isEmpty())
        startExport(out, format);
}

void MainWindow::startImport(const QString& path, TaskFormat format)
{
    auto* progress = new QProgressDialog(tr("Importing %1…").arg(path), tr("Cancel"), 0, 0, this);
    progress->setObjectName(QStringLiteral("importProgress"));
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    auto* job = TransferJob::startImport(m_store.path(), path, format, defaultActor(), this);
    connect(progress, &QProgressDialog::canceled, job, &TransferJob::cancel);
    connect(job, &TransferJob::progress, progress, [progress](int done, int total) {
        progress->setMaximum(total);
        progress->setValue(done);
    });
    const auto finish = [this, job, progress] {
        progress->close();
        job->deleteLater();
        reload();
    };
    connect(job, &TransferJob::importFinished, this, [this, path, finish](const ImportReport& report) {
        finish();
        auto* dialog = new ImportReportDialog(path, report, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        statusBar()->showMessage(tr("Imported %1: %2 new, %3 updated, %4 skipped")
                                     .arg(path)
                                     .arg(report.created)
                                     .arg(report.updated)
                                     .arg(report.skipped));
    });
    connect(job, &TransferJob::failed, this, [this, path, finish](const QString& message) {
        finish();
        QMessageBox::warning(this, tr("Import failed"), tr("Import of %1 failed:\n%2").arg(path, message));
    });
}

void MainWindow::startExport(const QString& out, TaskFormat format)
{
    TaskFilter filter;
    filter.ids = visibleTaskIds();
    if (filter.ids.isEmpty()) {
        statusBar()->showMessage(tr("No task to export: the filter shows none"));
        return;
    }
    auto* job = TransferJob::startExport(m_store.path(), filter, format, out, this);
    connect(job, &TransferJob::exportFinished, this, [this, job, out](int n) {
        job->deleteLater();
        statusBar()->showMessage(tr("Exported %1 task(s) to %2").arg(n).arg(out));
    });
    connect(job, &TransferJob::failed, this, [this, job](const QString& message) {
        job->deleteLater();
        QMessageBox::warning(this, tr("Export failed"), message);
    });
}

void MainWindow::connectReview()
{
    // The review queue is the list as filtered and sorted; the list follows the review and the review the list.
    connect(m_review, &ReviewSession::currentTaskChanged, this, [this](const QString& id) {
        if (!id.isEmpty())
            selectTask(id);
    });
    connect(m_review, &ReviewSession::decisionRecorded, this, [this](const ReviewRecord& r) { refreshTask(r.taskId); });
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &MainWindow::scheduleQueueUpdate);  // a new sort
}

void MainWindow::refreshTask(const QString& id)
{
    // A decision changes one task: re-read its row (about 1 ms) rather than the whole list (80 ms at 10,000 tasks).
    TaskFilter one;
    one.ids = {id};
    auto rows = m_store.summaries(one);
    if (!rows || rows->size() != 1 || !m_model->updateRow(rows->first())) {
        reload();
        return;
    }
    m_review->updateInfo(rows.value());
    m_proxy->invalidate();  // the status may move it in or out of the filter, or in the sort
    filtersChanged();
    if (id == m_shownTaskId && !m_detail->editor()->isDirty())
        showTask(id);
}

void MainWindow::scheduleQueueUpdate()
{
    // Posted behind the list's repaint: the filtered list shows first, the queue (about 15 ms at 10,000 tasks)
    // follows in the same event-loop turn, and a burst of changes rebuilds it once.
    if (m_queueUpdatePending)
        return;
    m_queueUpdatePending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_queueUpdatePending = false;
            m_review->setOrder(visibleTaskIds());
        },
        Qt::QueuedConnection);
}

void MainWindow::saveLayout()
{
    m_settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    m_settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    m_settings.sync();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!settleUnsavedEdits()) {
        event->ignore();
        return;
    }
    saveLayout();
    event->accept();
}

bool MainWindow::settleUnsavedEdits()
{
    TaskEditor* editor = m_detail->editor();
    if (!editor->isDirty())
        return true;
    QMessageBox ask(QMessageBox::Question, tr("Unsaved edits"), tr("Task %1 has unsaved edits.").arg(editor->taskId()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    ask.setObjectName(QStringLiteral("unsavedEdits"));
    ask.setDefaultButton(QMessageBox::Save);
    switch (ask.exec()) {
    case QMessageBox::Save: return saveEdits();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

bool MainWindow::saveEdits()
{
    TaskEditor* editor = m_detail->editor();
    const auto edited = editor->editedTask();
    if (const QString* problem = std::get_if<QString>(&edited)) {
        editor->showMessage(*problem, true);
        return false;
    }
    const Task& task = std::get<Task>(edited);
    auto outcome = m_store.upsertTask(task, defaultActor(), tr("edited in the workbench"));
    if (!outcome) {
        editor->showMessage(outcome.error().message, true);
        return false;
    }
    const QString id = task.id;
    showTask(id);  // the stored version: the editor is clean again
    reload();
    m_detail->editor()->showMessage(outcome.value() == UpsertOutcome::Unchanged ? tr("No change") : tr("Saved"), false);
    return true;
}

void MainWindow::saveShown(const QString& taskId, PresentationSet shown)
{
    auto task = m_store.task(taskId);
    if (!task || !task.value())
        return;
    Task t = *task.value();
    t.shown = shown;
    auto outcome = m_store.upsertTask(t, defaultActor(), tr("presentations shown to the model"));
    if (!outcome)
        reportError(tr("Cannot change what %1 shows").arg(taskId), outcome.error().message);
    else
        statusBar()->showMessage(tr("%1 now shows: %2").arg(taskId, shown.names().join(QStringLiteral(", "))));
    reload();
}

void MainWindow::reload()
{
    auto rows = m_store.summaries();
    if (!rows) {
        reportError(tr("Cannot list tasks"), rows.error().message);
        return;
    }
    m_model->setSnapshot(rows.value());
    m_review->updateInfo(m_model->rows());
    applySearch();
    if (!m_detail->editor()->isDirty())
        showTask(m_shownTaskId);  // the shown task may have changed in the store
}

void MainWindow::setSearchText(const QString& text)
{
    const QSignalBlocker block(m_search);
    m_search->setText(text);
    applySearch();
}

void MainWindow::applySearch()
{
    // The store answers a search with ids (a few ms at 10,000 tasks); the rows are already in the model.
    std::optional<QSet<QString>> visible;
    if (!ftsQueryFor(m_search->text()).isEmpty()) {
        TaskFilter filter;
        filter.text = m_search->text();
        auto ids = m_store.matchingIds(filter);
        if (!ids) {
            reportError(tr("Search failed"), ids.error().message);
            return;
        }
        visible = QSet<QString>(ids.value().cbegin(), ids.value().cend());
    }
    m_proxy->setVisibleIds(std::move(visible));
    filtersChanged();
}

void MainWindow::filtersChanged()
{
    QString current = m_table->currentIndex().data(TaskTableModel::TaskIdRole).toString();
    if (current.isEmpty())
        current = m_shownTaskId;  // after a reload the view has no current row yet
    m_proxy->setFacets(m_filters->facets());
    m_filters->setCounts(
        countFacets(m_model->rows(), [this](const TaskSummary& s) { return m_proxy->matchesSearch(s.id); }));
    statusBar()->showMessage(tr("%1 of %2 tasks").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
    scheduleQueueUpdate();
    selectTask(current);
}

void MainWindow::selectTask(const QString& id)
{
    // Keep the task the user was on; when the filter dropped it, move to the first row.
    const int sourceRow = m_model->rowOf(id);
    QModelIndex target = sourceRow >= 0 ? m_proxy->mapFromSource(m_model->index(sourceRow, 0)) : QModelIndex();
    if (!target.isValid())
        target = m_proxy->index(0, 0);
    if (target.isValid())
        m_table->setCurrentIndex(target);
    else if (!m_detail->editor()->isDirty())
        showTask({});
}

QStringList MainWindow::visibleTaskIds() const
{
    QStringList ids;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        ids.append(m_proxy->index(r, 0).data(TaskTableModel::TaskIdRole).toString());
    return ids;
}

void MainWindow::showSelectedTask()
{
    const QString id = m_table->currentIndex().data(TaskTableModel::TaskIdRole).toString();
    if (id == m_shownTaskId)
        return;
    if (!settleUnsavedEdits()) {
        const QSignalBlocker block(m_table->selectionModel());
        selectTask(m_shownTaskId);  // stay on the task with the edits
        return;
    }
    showTask(id);
}

void MainWindow::showTask(const QString& id)
{
    m_shownTaskId = id;
    if (!id.isEmpty())
        m_review->setCurrentTask(id);  // the review follows the task on screen (a no-op when it is already there)
    if (id.isEmpty()) {
        m_detail->clear();
        return;
    }
    auto task = m_store.task(id);
    auto history = m_store.audit(QStringLiteral("task"), id);
    if (!task || !history) {
        reportError(tr("Cannot load task %1").arg(id), !task ? task.error().message : history.error().message);
        return;
    }
    if (task.value())
        m_detail->setTask(*task.value(), history.value());
}

void MainWindow::reportError(const QString& what, const QString& message)
{
    statusBar()->showMessage(QStringLiteral("%1: %2").arg(what, message));
}

}  // namespace km::ui
