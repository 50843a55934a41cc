#include "views/MainWindow.h"

#include "jobs/TransferJob.h"
#include "models/TaskFilterProxyModel.h"
#include "models/TaskTableModel.h"
#include "store/TaskStore.h"
#include "views/FilterPanel.h"
#include "views/ImportReportDialog.h"
#include "views/TaskDetailView.h"

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
    QHeaderView* header = m_table->horizontalHeader();
    for (int c : {TaskTableModel::Id, TaskTableModel::Level, TaskTableModel::Presentations, TaskTableModel::Status,
                  TaskTableModel::Reviewer, TaskTableModel::LastChange})
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TaskTableModel::Title, QHeaderView::Stretch);
    header->resizeSection(TaskTableModel::Categories, 200);
    m_table->setAlternatingRowColors(true);
    setCentralWidget(m_table);

    QDockWidget* filters =
        makeDock(this, tr("Filters"), QStringLiteral("filtersDock"), m_filters, Qt::LeftDockWidgetArea);
    QDockWidget* task = makeDock(this, tr("Task"), QStringLiteral("taskDock"), m_detail, Qt::RightDockWidgetArea);
    resizeDocks({filters, task}, {220, 520}, Qt::Horizontal);  // first start; a saved layout overrides it

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
    buildMenus();

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

void MainWindow::saveLayout()
{
    m_settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    m_settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    m_settings.sync();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveLayout();
    event->accept();
}

void MainWindow::reload()
{
    auto rows = m_store.summaries();
    if (!rows) {
        reportError(tr("Cannot list tasks"), rows.error().message);
        return;
    }
    m_model->setSnapshot(rows.value());
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
    const QString current = m_table->currentIndex().data(TaskTableModel::TaskIdRole).toString();
    m_proxy->setFacets(m_filters->facets());
    m_filters->setCounts(
        countFacets(m_model->rows(), [this](const TaskSummary& s) { return m_proxy->matchesSearch(s.id); }));
    statusBar()->showMessage(tr("%1 of %2 tasks").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
    selectTask(current);
}

void MainWindow::selectTask(const QString& id)
{
    // Keep the task the user was on; when the filter dropped it, move to the first row.
    QModelIndex target = m_proxy->index(0, 0);
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const QModelIndex i = m_proxy->index(r, 0);
        if (i.data(TaskTableModel::TaskIdRole).toString() == id) {
            target = i;
            break;
        }
    }
    if (target.isValid())
        m_table->setCurrentIndex(target);
    else
        m_detail->clear();
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
    if (id.isEmpty()) {
        m_detail->clear();
        return;
    }
    auto task = m_store.task(id);
    if (!task) {
        reportError(tr("Cannot load task %1").arg(id), task.error().message);
        return;
    }
    if (task.value())
        m_detail->setTask(*task.value());
}

void MainWindow::reportError(const QString& what, const QString& message)
{
    statusBar()->showMessage(QStringLiteral("%1: %2").arg(what, message));
}

}  // namespace km::ui
