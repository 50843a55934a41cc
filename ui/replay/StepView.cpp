// StepView: the tabs of one step.
#include "replay/StepView.h"

#include "replay/CodePane.h"
#include "replay/ConversationPane.h"
#include "replay/DiffView.h"
#include "replay/VerdictHtml.h"

#include <QTextBrowser>

namespace km::replay {

QString stepInfoHtml(const TrajectoryStep& s)
{
    const auto esc = [](const QString& t) {
        return t.toHtmlEscaped();
    };
    QStringList guidance;
    for (const QVariant& g : s.guidance)
        guidance << esc(g.toString());
    const QVariant attempts = s.usage.value(QStringLiteral("attempts"));
    const QVariant finish = s.usage.value(QStringLiteral("finish_reason"));
    const QList<std::pair<QString, QString>> rows = {
        {StepView::tr("step"), QString::number(s.idx + 1)},
        {StepView::tr("stage"), toString(s.stage)},
        {StepView::tr("template"), esc(s.templateName)},
        {StepView::tr("guidance notes"),
         guidance.isEmpty() ? StepView::tr("none") : guidance.join(QStringLiteral(", "))},
        {StepView::tr("tokens in / out"), QStringLiteral("%1 / %2").arg(s.tokensIn).arg(s.tokensOut)},
        {StepView::tr("attempts"), attempts.isValid() ? esc(attempts.toString()) : StepView::tr("–")},
        {StepView::tr("finish reason"), finish.isValid() ? esc(finish.toString()) : StepView::tr("–")},
        {StepView::tr("latency"), StepView::tr("%1 ms").arg(s.latencyMs)},
        {StepView::tr("verify time"), StepView::tr("%1 ms").arg(s.verifyMs)},
        {StepView::tr("recorded"), s.createdAt.toString(Qt::ISODate)},
    };
    QString out = QStringLiteral("<table cellpadding='3'>");
    for (const auto& [k, v] : rows)
        out += QStringLiteral("<tr><th align='left'>%1</th><td>%2</td></tr>").arg(k, v);
    out += QStringLiteral("</table>");
    if (!s.error.isEmpty())
        out += QStringLiteral("<p><b>%1</b> %2</p>").arg(StepView::tr("No verdict:"), esc(s.error));
    if (!s.usage.isEmpty()) {
        out += QStringLiteral("<h3>%1</h3><table cellpadding='2'>").arg(StepView::tr("Usage as reported"));
        for (auto it = s.usage.cbegin(); it != s.usage.cend(); ++it)
            out += QStringLiteral("<tr><th align='left'>%1</th><td>%2</td></tr>")
                       .arg(esc(it.key()), esc(it.value().toString()));
        out += QStringLiteral("</table>");
    }
    return out;
}

StepView::StepView(QWidget* parent)
    : QTabWidget(parent)
    , m_conversation(new ConversationPane(this))
    , m_code(new CodePane(this))
    , m_diff(new DiffView(this))
    , m_verdict(new QTextBrowser(this))
    , m_info(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("stepView"));
    m_verdict->setObjectName(QStringLiteral("verdictBrowser"));
    m_info->setObjectName(QStringLiteral("stepInfoBrowser"));
    addTab(m_conversation, tr("Con&versation"));
    addTab(m_code, tr("C&ode"));
    addTab(m_diff, tr("Di&ff"));
    addTab(m_verdict, tr("&Verdict"));
    addTab(m_info, tr("&Step"));
    connect(this, &QTabWidget::currentChanged, this, &StepView::render);
    clear();
}

void StepView::setStep(const StepDetail& detail, const std::optional<std::pair<QString, QString>>& base)
{
    m_detail = detail;
    m_hasStep = true;
    m_pickedDiffBase = base.has_value();
    m_diffBaseLabel = base ? base->first : QString();
    m_diffBaseCode = base ? base->second : QString();
    markStale();
}

void StepView::markStale()
{
    m_stale = (1u << ConversationTab) | (1u << CodeTab) | (1u << DiffTab) | (1u << VerdictTab) | (1u << StepTab);
    render(currentIndex());
}

void StepView::render(int tab) const
{
    if (tab < 0 || !(m_stale & (1u << tab)))
        return;
    m_stale &= ~(1u << tab);
    const TrajectoryStep& s = m_detail.step;
    switch (Tab(tab)) {
    case ConversationTab: m_conversation->setStep(s); break;
    case CodeTab: m_code->setCode(s.code, m_detail.verdict); break;
    case DiffTab:
        if (m_pickedDiffBase)
            m_diff->setTexts(m_diffBaseLabel, m_diffBaseCode, tr("step %1").arg(s.idx + 1), s.code);
        else if (s.idx == 0)
            m_diff->setTexts(tr("(nothing before the first step)"), {}, tr("step %1").arg(s.idx + 1), s.code);
        else
            m_diff->setTexts(tr("step %1").arg(s.idx), m_detail.previousCode, tr("step %1").arg(s.idx + 1), s.code);
        break;
    case VerdictTab: {
        QString reason = s.error;
        if (reason.isEmpty() && s.code.isEmpty())
            reason = tr("the reply had no code");
        m_verdict->setHtml(verdictHtml(m_detail.verdict, reason));
        break;
    }
    case StepTab: m_info->setHtml(stepInfoHtml(s)); break;
    }
}

ConversationPane* StepView::conversation() const
{
    render(ConversationTab);
    return m_conversation;
}

CodePane* StepView::code() const
{
    render(CodeTab);
    return m_code;
}

DiffView* StepView::diffView() const
{
    render(DiffTab);
    return m_diff;
}

QTextBrowser* StepView::verdictBrowser() const
{
    render(VerdictTab);
    return m_verdict;
}

QTextBrowser* StepView::stepBrowser() const
{
    render(StepTab);
    return m_info;
}

void StepView::resetDiffBase()
{
    m_pickedDiffBase = false;
    m_diffBaseLabel.clear();
    m_diffBaseCode.clear();
    m_stale |= 1u << DiffTab;
    render(currentIndex());
}

void StepView::clear()
{
    m_detail = StepDetail{};
    m_hasStep = false;
    m_pickedDiffBase = false;
    m_diffBaseLabel.clear();
    m_diffBaseCode.clear();
    m_stale = 0;
    m_conversation->clear();
    m_code->setCode({}, std::nullopt);
    m_diff->setTexts({}, {}, {}, {});
    m_verdict->setHtml(QStringLiteral("<p>%1</p>").arg(tr("No step selected.")));
    m_info->setHtml(QStringLiteral("<p>%1</p>").arg(tr("No step selected.")));
}

void StepView::setDiffBase(const QString& oldLabel, const QString& oldCode)
{
    m_pickedDiffBase = true;
    m_diffBaseLabel = oldLabel;
    m_diffBaseCode = oldCode;
    m_stale |= 1u << DiffTab;
    render(currentIndex());
}

}  // namespace km::replay
