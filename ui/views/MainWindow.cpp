#include "views/MainWindow.h"

#include "controller/WorkbenchController.h"
#include "models/TaskFilterProxyModel.h"
#include "models/TaskTableModel.h"
#include "review/ReviewPanel.h"
#include "review/ReviewSession.h"
#include "store/TaskStore.h"
#include "views/FilterPanel.h"
#include "views/ReviewerIdentity.h"
#include "views/TaskDetailView.h"
#include "views/TaskEditor.h"
#include "views/TaskTable.h"
#include "views/TransferRunner.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

namespace km::ui {

namespace {
constexpr int kLayoutVersion = 2;  // 2: review under the list; layouts saved before are not restored

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

MainWindow::MainWindow(WorkbenchController& controller, QSettings& settings, QWidget* parent)
    : QMainWindow(parent)
    , m_controller(controller)
    , m_settings(settings)
    , m_table(new TaskTable(this))
    , m_detail(new TaskDetailView(this))
    , m_filters(new FilterPanel(this))
    , m_search(new QLineEdit(this))
    , m_searchDebounce(new QTimer(this))
    , m_reviewPanel(new ReviewPanel(controller.review(), settings, this))
    , m_transfers(new TransferRunner(controller, this))
    , m_reviewer(new QLabel(this))
{
    setWindowTitle(tr("KernelMosaic Workbench — %1").arg(controller.storePath()));
    m_table->setModel(controller.visibleTasks());
    setCentralWidget(m_table);
    buildDocks();

    m_search->setObjectName(QStringLiteral("searchBox"));
    m_search->setPlaceholderText(tr("Search titles, descriptions, specifications and code…"));
    m_search->setClearButtonEnabled(true);
    auto* bar = addToolBar(tr("Search"));
    bar->setObjectName(QStringLiteral("searchBar"));
    bar->addWidget(m_search);
    m_searchDebounce->setSingleShot(true);
    m_searchDebounce->setInterval(120);  // typing coalesces: the latest text wins
    m_reviewer->setObjectName(QStringLiteral("reviewerLabel"));
    statusBar()->addPermanentWidget(m_reviewer);
    buildMenus();
    connectController();

    resize(1500, 900);
    restoreGeometry(m_settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(m_settings.value(QStringLiteral("mainWindow/state")).toByteArray(), kLayoutVersion);
    m_controller.reload();
    showCurrentTask();
}

MainWindow::~MainWindow()
{
    m_controller.setEditGuard({}, {});  // the controller outlives the editor the guard asks
}

void MainWindow::buildDocks()
{
    auto* filterScroll = new QScrollArea(this);  // the lists scroll rather than hold the window's height up
    filterScroll->setWidget(m_filters);
    filterScroll->setWidgetResizable(true);
    filterScroll->setFrameShape(QFrame::NoFrame);
    filterScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    filterScroll->setMinimumWidth(m_filters->minimumSizeHint().width());
    m_filters->setMinimumHeight(m_filters->sizeHint().height());
    QDockWidget* filters =
        makeDock(this, tr("Filters"), QStringLiteral("filtersDock"), filterScroll, Qt::LeftDockWidgetArea);
    QDockWidget* task = makeDock(this, tr("Task"), QStringLiteral("taskDock"), m_detail, Qt::RightDockWidgetArea);
    m_taskDock = task;
    QDockWidget* review =
        makeDock(this, tr("Review"), QStringLiteral("reviewDock"), m_reviewPanel, Qt::BottomDockWidgetArea);
    m_reviewDock = review;
    // The task's content takes the right side from top to bottom; the review panel sits under the list and the
    // filters, its two columns side by side, so neither squeezes the content (first start; a saved layout wins).
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    resizeDocks({filters, task}, {190, 600}, Qt::Horizontal);
    // The minimum hint does not count the task line wrapping to two lines.
    resizeDocks({review}, {m_reviewPanel->minimumSizeHint().height() + 2 * fontMetrics().lineSpacing()}, Qt::Vertical);
}

void MainWindow::connectController()
{
    WorkbenchController& c = m_controller;
    connect(m_search, &QLineEdit::textChanged, m_searchDebounce, qOverload<>(&QTimer::start));
    connect(m_searchDebounce, &QTimer::timeout, this, [this] { m_controller.setSearchText(m_search->text()); });
    connect(m_filters, &FilterPanel::facetsChanged, &c, &WorkbenchController::setFacets);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& now) {
        const QString id = now.data(TaskTableModel::TaskIdRole).toString();
        if (!id.isEmpty() && id != m_controller.currentTaskId())
            m_controller.selectTask(id);
    });
    // The table shows the controller's current task, and only it: after a refused change too. A mouse press selects
    // its row after the current-row signal that asked, so the selection is checked again once the event is done.
    connect(&c, &WorkbenchController::currentTaskChanged, this, [this] {
        syncSelection();
        QTimer::singleShot(0, this, &MainWindow::syncSelection);
    });
    connect(&c, &WorkbenchController::taskLoaded, this, &MainWindow::showCurrentTask);
    connect(&c, &WorkbenchController::listChanged, this, [this] { m_filters->setCounts(m_controller.facetCounts()); });
    connect(&c, &WorkbenchController::message, this, [this](const QString& text) { statusBar()->showMessage(text); });
    connect(&c, &WorkbenchController::reviewerChanged, this,
            [this](const QString& name) { m_reviewer->setText(tr("Reviewer: %1").arg(name)); });
    m_reviewer->setText(tr("Reviewer: %1").arg(c.reviewer()));
    connect(m_detail->editor(), &TaskEditor::saveRequested, this, &MainWindow::saveEdits);
    connect(&c, &WorkbenchController::saved, this, [this](const QString& id, bool ok, const QString& text) {
        if (m_detail->editor()->taskId() == id)
            m_detail->editor()->showMessage(text, !ok);
    });
    connect(m_detail->editor(), &TaskEditor::revertRequested, this, &MainWindow::showCurrentTask);
    connect(m_detail, &TaskDetailView::shownChanged, &c, &WorkbenchController::setShown);
    c.setEditGuard([this] { return m_detail->editor()->isDirty(); }, [this] { return settleUnsavedEdits(); });
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
    file->addAction(tr("&Reload"), QKeySequence::Refresh, &m_controller, &WorkbenchController::reload);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    QMenu* review = m_reviewPanel->menu();
    menuBar()->addMenu(review);
    review->addSeparator();
    review->addAction(tr("Reviewer &Name…"), this, &MainWindow::changeReviewer)
        ->setObjectName(QStringLiteral("changeReviewer"));
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About KernelMosaic"), this, [this] {
        QMessageBox::about(this, tr("About KernelMosaic Workbench"),
                           tr("<b>KernelMosaic Workbench</b> %1<br>Curate CUDA tasks, verified kernels and agent "
                              "trajectories.<br>Store: %2")
                               .arg(QApplication::applicationVersion(), m_controller.storePath().toHtmlEscaped()));
    });
}

void MainWindow::changeReviewer()
{
    const QString name = askReviewer(this, m_settings, m_controller.reviewer());
    if (!name.isEmpty())
        m_controller.setReviewer(name);
}

void MainWindow::chooseImport(TaskFormat format)
{
    const QString path =
        format == TaskFormat::Jsonl
            ? QFileDialog::getOpenFileName(this, tr("Import JSONL"), {}, tr("JSON Lines (*.jsonl *.json)"))
            : QFileDialog::getExistingDirectory(this, format == TaskFormat::KernelBench ? tr("KernelBench checkout")
                                                                                        : tr("Task folder(s)"));
    if (!path.isEmpty())
        m_transfers->startImport(path, format);
}

void MainWindow::chooseExport(TaskFormat format)
{
    const QString out = format == TaskFormat::Jsonl
                            ? QFileDialog::getSaveFileName(this, tr("Export JSONL"), {}, tr("JSON Lines (*.jsonl)"))
                            : QFileDialog::getExistingDirectory(this, tr("Export into folder"));
    if (!out.isEmpty())
        m_transfers->startExport(out, format);
}

void MainWindow::setSearchText(const QString& text)
{
    const QSignalBlocker block(m_search);
    m_search->setText(text);
    m_searchDebounce->stop();
    m_controller.setSearchText(text);
}

void MainWindow::syncSelection()
{
    const QString id = m_controller.currentTaskId();
    const int sourceRow = m_controller.taskModel()->rowOf(id);
    m_table->showRow(sourceRow < 0 ? QModelIndex()
                                   : m_controller.visibleTasks()->mapFromSource(
                                         m_controller.taskModel()->index(sourceRow, TaskTableModel::Id)));
}

void MainWindow::showCurrentTask()
{
    if (const auto& task = m_controller.currentTask()) {
        m_detail->setTask(*task, m_controller.currentHistory());
        m_detail->setActivity(m_controller.currentActivity());
    } else {
        m_detail->clear();  // no task: the editor is empty and disabled
    }
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    // A narrower window takes its width from the task view beside the review panel, not from the panel: docks keep
    // their width when the window shrinks, and the panel's buttons would end up under the task view.
    if (m_taskDock->isFloating() || m_reviewDock->isFloating() || !m_taskDock->isVisible() ||
        dockWidgetArea(m_reviewDock) != Qt::BottomDockWidgetArea)
        return;
    const int room = width() - m_reviewDock->minimumSizeHint().width() - 12;
    if (m_taskDock->width() > room && room >= m_taskDock->minimumSizeHint().width())
        resizeDocks({m_taskDock}, {room}, Qt::Horizontal);
}

void MainWindow::saveLayout()
{
    m_settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    m_settings.setValue(QStringLiteral("mainWindow/state"), saveState(kLayoutVersion));
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
    // The write is queued; the stored version replaces the edits once written (saved() then says so).
    if (Status s = m_controller.saveEdit(std::get<Task>(edited)); !s) {
        editor->showMessage(s.error().message, true);
        return false;
    }
    editor->showMessage(tr("Saving…"), false);
    return true;
}

}  // namespace km::ui
