// The solution queue's filter bar (SolutionFilterBar.h).
#include "solutions/SolutionFilterBar.h"

#include "model/Verdict.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>

namespace km::ui {

SolutionFilterBar::SolutionFilterBar(QWidget* parent)
    : QWidget(parent)
    , m_search(new QLineEdit(this))
    , m_review(new QComboBox(this))
    , m_verdict(new QComboBox(this))
    , m_origin(new QComboBox(this))
{
    m_search->setObjectName(QStringLiteral("solutionSearch"));
    m_search->setPlaceholderText(tr("Search task, GPU, reviewer…"));
    m_search->setClearButtonEnabled(true);
    m_review->setObjectName(QStringLiteral("solutionReviewFilter"));
    m_review->addItem(tr("Any review status"));
    m_review->addItem(tr("To review (draft, in review, needs changes)"), QStringLiteral("open"));
    for (ReviewStatus s : {ReviewStatus::Accepted, ReviewStatus::Rejected})
        m_review->addItem(toString(s), toString(s));
    m_verdict->setObjectName(QStringLiteral("solutionVerdictFilter"));
    m_verdict->addItem(tr("Any verdict"));
    m_verdict->addItem(tr("not verified"), QStringLiteral("NONE"));
    for (VerdictStatus s : allVerdictStatuses())
        m_verdict->addItem(toString(s), toString(s));
    m_origin->setObjectName(QStringLiteral("solutionOriginFilter"));
    m_origin->addItem(tr("Any origin"));
    for (const char* o : {"agent", "manual", "import"})
        m_origin->addItem(QString::fromLatin1(o), QString::fromLatin1(o));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_search, 2);
    for (QComboBox* c : {m_review, m_verdict, m_origin}) {
        layout->addWidget(c, 1);
        connect(c, &QComboBox::currentIndexChanged, this, &SolutionFilterBar::changed);
    }
    connect(m_search, &QLineEdit::textChanged, this, &SolutionFilterBar::changed);
}

SolutionViewFilter SolutionFilterBar::apply(SolutionViewFilter f) const
{
    f.search = m_search->text().trimmed();
    f.reviewStatuses.clear();
    const QString review = m_review->currentData().toString();
    if (review == QLatin1String("open"))
        f.reviewStatuses = {ReviewStatus::Draft, ReviewStatus::InReview, ReviewStatus::NeedsChanges};
    else if (const auto s = reviewStatusFromString(review))
        f.reviewStatuses = {*s};
    f.verdictStatus = m_verdict->currentData().toString();
    f.origin = m_origin->currentData().toString();
    return f;
}

}  // namespace km::ui
