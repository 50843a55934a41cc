// The runs view (RunsView.h): the filter bar, the table and the keyboard moves through the filtered order.
#include "views/RunsView.h"

#include "models/RunTableModel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSet>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace km::ui {

namespace {
constexpr double kNoBound = 0.0;  // the spin boxes' minimum, shown as "any"

QDoubleSpinBox* speedupBox(const QString& objectName, const QString& any, QWidget* parent)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setObjectName(objectName);
    box->setRange(kNoBound, 1000.0);
    box->setDecimals(2);
    box->setSingleStep(0.25);
    box->setSuffix(QStringLiteral("x"));
    box->setSpecialValueText(any);
    return box;
}
}  // namespace

RunsView::RunsView(QWidget* parent)
    : QWidget(parent)
    , m_model(new RunTableModel(this))
    , m_proxy(new RunFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_count(new QLabel(this))
{
    setObjectName(QStringLiteral("runsView"));
    m_proxy->setSourceTable(m_model);

    QStringList states = runStateNames();
    m_states = checkMenu(tr("State"), QStringLiteral("runStateFilter"), states, states);
    QStringList statuses;
    for (VerdictStatus s : allVerdictStatuses())
        statuses << toString(s);
    QStringList statusLabels = statuses;
    statuses << QString();
    statusLabels << tr("no verdict");
    m_statuses = checkMenu(tr("Status"), QStringLiteral("runStatusFilter"), statuses, statusLabels);
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("runSourceFilter"));
    m_label = new QComboBox(this);
    m_label->setObjectName(QStringLiteral("runLabelFilter"));
    m_min = speedupBox(QStringLiteral("runSpeedupMin"), tr("min any"), this);
    m_max = speedupBox(QStringLiteral("runSpeedupMax"), tr("max any"), this);
    m_task = new QLineEdit(this);
    m_task->setObjectName(QStringLiteral("runTaskFilter"));
    m_task->setPlaceholderText(tr("Task id or title"));
    m_task->setClearButtonEnabled(true);
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("runSearch"));
    m_search->setPlaceholderText(tr("Search task, model, label, error"));
    m_search->setClearButtonEnabled(true);
    refillChoices();

    // Two rows: the search and the count, then the facets; one row leaves the text boxes no room beside the replay.
    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(m_search, 2);
    searchRow->addWidget(m_task, 1);
    searchRow->addWidget(m_count);
    auto* facetRow = new QHBoxLayout;
    facetRow->addWidget(m_states);
    facetRow->addWidget(m_source);
    facetRow->addWidget(m_statuses);
    facetRow->addWidget(new QLabel(tr("Speedup"), this));
    facetRow->addWidget(m_min);
    facetRow->addWidget(m_max);
    facetRow->addWidget(m_label);
    facetRow->addStretch(1);
    auto* bar = new QVBoxLayout;
    bar->addLayout(searchRow);
    bar->addLayout(facetRow);

    m_table->setObjectName(QStringLiteral("runTable"));
    m_count->setObjectName(QStringLiteral("runCount"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunTableModel::Started, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setColumnWidth(RunTableModel::State, 200);  // room for a failed run's reason

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connect(m_source, &QComboBox::currentIndexChanged, this, &RunsView::applyBar);
    connect(m_label, &QComboBox::currentIndexChanged, this, &RunsView::applyBar);
    connect(m_min, &QDoubleSpinBox::valueChanged, this, &RunsView::applyBar);
    connect(m_max, &QDoubleSpinBox::valueChanged, this, &RunsView::applyBar);
    connect(m_task, &QLineEdit::textChanged, this, &RunsView::applyBar);
    connect(m_search, &QLineEdit::textChanged, this, &RunsView::applyBar);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        const qint64 id = currentRunId();
        if (id == m_lastCurrent)
            return;
        m_lastCurrent = id;
        Q_EMIT currentRunChanged(id);
    });
    // activated: Enter, and a double click (QAbstractItemView says both).
    connect(m_table, &QAbstractItemView::activated, this, [this](const QModelIndex& i) {
        if (const qint64 id = i.data(RunTableModel::RunIdRole).toLongLong())
            Q_EMIT runActivated(id);
    });
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &RunsView::updateCount);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &RunsView::updateCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RunsView::updateCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RunsView::updateCount);
    updateCount();
}

QToolButton* RunsView::checkMenu(const QString& text, const QString& objectName, const QStringList& items,
                                 const QStringList& labels)
{
    auto* button = new QToolButton(this);
    button->setObjectName(objectName);
    button->setText(text);
    button->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(button);
    for (int i = 0; i < items.size(); ++i) {
        QAction* a = menu->addAction(labels.value(i));
        a->setCheckable(true);
        a->setData(items[i]);
        connect(a, &QAction::toggled, this, &RunsView::applyBar);
    }
    button->setMenu(menu);
    return button;
}

QStringList RunsView::checked(QToolButton* button) const
{
    QStringList out;
    for (QAction* a : button->menu()->actions())
        if (a->isChecked())
            out << a->data().toString();
    return out;
}

void RunsView::setChecked(QToolButton* button, const QStringList& values)
{
    for (QAction* a : button->menu()->actions())
        a->setChecked(values.contains(a->data().toString()));
    const int n = int(values.size());
    const QString base = button == m_states ? tr("State") : tr("Status");
    button->setText(n ? QStringLiteral("%1 (%2)").arg(base).arg(n) : base);
}

// The reply source and label choices are the values the runs have, each once; the current choice is kept.
void RunsView::refillChoices()
{
    const bool was = m_updatingBar;
    m_updatingBar = true;
    auto refill = [](QComboBox* box, const QString& any, QStringList values) {
        const QString current = box->currentData().toString();
        const bool hadChoice = box->currentIndex() > 0;
        values.removeDuplicates();
        values.removeAll(QString());
        values.sort(Qt::CaseInsensitive);
        box->clear();
        box->addItem(any, QString());
        for (const QString& v : values)
            box->addItem(v, v);
        if (hadChoice) {
            int at = box->findData(current);
            if (at < 0) {  // a choice no run has any more still filters: keep it visible
                box->addItem(current, current);
                at = box->count() - 1;
            }
            box->setCurrentIndex(at);
        }
    };
    QStringList sources;
    QStringList labels;
    for (const RunSummary& r : m_model->runs()) {
        sources << r.replySource;
        labels << r.label;
    }
    refill(m_source, tr("Any source"), sources);
    refill(m_label, tr("Any label"), labels);
    m_updatingBar = was;
}

void RunsView::applyBar()
{
    if (m_updatingBar)
        return;
    RunFilter f;
    for (const QString& s : checked(m_states))
        if (auto state = runStateFromString(s))
            f.states << *state;
    f.bestStatuses = checked(m_statuses);
    if (m_source->currentIndex() > 0)
        f.replySources << m_source->currentData().toString();
    if (m_label->currentIndex() > 0)
        f.label = m_label->currentData().toString();
    if (m_min->value() > kNoBound)
        f.speedupMin = m_min->value();
    if (m_max->value() > kNoBound)
        f.speedupMax = m_max->value();
    f.task = m_task->text().trimmed();
    f.search = m_search->text().trimmed();
    m_updatingBar = true;
    setChecked(m_states, checked(m_states));
    setChecked(m_statuses, f.bestStatuses);
    m_updatingBar = false;
    m_proxy->setFilter(f);
    updateCount();
}

void RunsView::setFilter(const RunFilter& f)
{
    m_updatingBar = true;
    QStringList states;
    for (RunState s : f.states)
        states << toString(s);
    setChecked(m_states, states);
    setChecked(m_statuses, f.bestStatuses);
    const QString source = f.replySources.value(0);
    m_source->setCurrentIndex(source.isEmpty() ? 0 : qMax(0, m_source->findData(source)));
    if (!source.isEmpty() && m_source->currentIndex() == 0) {
        m_source->addItem(source, source);
        m_source->setCurrentIndex(m_source->count() - 1);
    }
    m_label->setCurrentIndex(f.label.isEmpty() ? 0 : qMax(0, m_label->findData(f.label)));
    if (!f.label.isEmpty() && m_label->currentIndex() == 0) {
        m_label->addItem(f.label, f.label);
        m_label->setCurrentIndex(m_label->count() - 1);
    }
    m_min->setValue(f.speedupMin.value_or(kNoBound));
    m_max->setValue(f.speedupMax.value_or(kNoBound));
    m_task->setText(f.task);
    m_search->setText(f.search);
    m_updatingBar = false;
    m_proxy->setFilter(f);  // the whole value: also what the bar cannot show (several sources)
    updateCount();
}

void RunsView::setRuns(QList<RunSummary> runs)
{
    const qint64 current = currentRunId();
    m_model->setRuns(std::move(runs));
    refillChoices();
    if (current && currentRunId() != current)
        selectRun(current);
    updateCount();
}

bool RunsView::selectRun(qint64 id)
{
    const int sourceRow = m_model->rowOf(id);
    if (sourceRow < 0)
        return false;
    QModelIndex at = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!at.isValid()) {
        setFilter({});
        at = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    }
    m_table->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(at);
    return true;
}

qint64 RunsView::currentRunId() const
{
    const QModelIndex i = m_table->selectionModel()->currentIndex();
    return i.isValid() ? i.data(RunTableModel::RunIdRole).toLongLong() : 0;
}

void RunsView::moveBy(int delta)
{
    const int rows = m_proxy->rowCount();
    if (rows == 0)
        return;
    const QModelIndex cur = m_table->selectionModel()->currentIndex();
    const int row = cur.isValid() ? qBound(0, cur.row() + delta, rows - 1) : (delta > 0 ? 0 : rows - 1);
    const QModelIndex at = m_proxy->index(row, cur.isValid() ? cur.column() : 0);
    m_table->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(at);
}

void RunsView::nextRun()
{
    moveBy(1);
}

void RunsView::previousRun()
{
    moveBy(-1);
}

void RunsView::setTaskFilter(const QString& task)
{
    RunFilter f = m_proxy->filter();
    f.task = task;
    setFilter(f);
}

void RunsView::updateCount()
{
    const auto c = m_proxy->counts();
    m_count->setText(tr("%1 of %2 runs").arg(c.visible).arg(c.total));
}

}  // namespace km::ui
