#include "review/ShortcutMap.h"

#include "review/ReasonCodes.h"

#include <QSettings>

namespace km::ui {

namespace {
const QString kGroup = QStringLiteral("review/shortcuts");

QList<ShortcutInfo> makeCatalog()
{
    using A = ReviewAction;
    const QString moveOn =
        QStringLiteral(" with the chosen reason and comment, then go to the next task needing review");
    const QString choose =
        QStringLiteral(" as the decision without recording it and write a comment (Ctrl+Return saves)");
    QList<ShortcutInfo> c = {
        {A::Accept, QStringLiteral("accept"), QStringLiteral("Accept"), QStringLiteral("Record accepted") + moveOn,
         QKeySequence(Qt::Key_A)},
        {A::Reject, QStringLiteral("reject"), QStringLiteral("Reject"), QStringLiteral("Record rejected") + moveOn,
         QKeySequence(Qt::Key_X)},
        {A::NeedsChanges, QStringLiteral("needs-changes"), QStringLiteral("Needs changes"),
         QStringLiteral("Record needs changes") + moveOn, QKeySequence(Qt::Key_C)},
        {A::ChooseAccept, QStringLiteral("choose-accept"), QStringLiteral("Accept with comment…"),
         QStringLiteral("Choose accepted") + choose, QKeySequence(Qt::SHIFT | Qt::Key_A)},
        {A::ChooseReject, QStringLiteral("choose-reject"), QStringLiteral("Reject with comment…"),
         QStringLiteral("Choose rejected") + choose, QKeySequence(Qt::SHIFT | Qt::Key_X)},
        {A::ChooseNeedsChanges, QStringLiteral("choose-needs-changes"), QStringLiteral("Needs changes with comment…"),
         QStringLiteral("Choose needs changes") + choose, QKeySequence(Qt::SHIFT | Qt::Key_C)},
        {A::Save, QStringLiteral("save"), QStringLiteral("Save and next"),
         QStringLiteral("Record the chosen decision") + moveOn + QStringLiteral("; works in the comment field"),
         QKeySequence(Qt::CTRL | Qt::Key_Return)},
        {A::Skip, QStringLiteral("skip"), QStringLiteral("Skip"),
         QStringLiteral("Go to the next task without recording; skipped tasks come back after all others"),
         QKeySequence(Qt::Key_Space)},
        {A::Undo, QStringLiteral("undo"), QStringLiteral("Undo"),
         QStringLiteral("Undo the last decision of this session: a new review restores the previous status "
                        "(reason \"undo\"); repeat to go further back"),
         QKeySequence(Qt::Key_Backspace)},
        {A::Comment, QStringLiteral("comment"), QStringLiteral("Write comment"),
         QStringLiteral("Go to the comment field (Esc leaves it)"), QKeySequence(Qt::Key_E)},
        {A::Help, QStringLiteral("help"), QStringLiteral("Keyboard shortcuts"), QStringLiteral("List every key"),
         QKeySequence(Qt::Key_Question)},
    };
    for (int i = 0; i < kMaxReasonCodes; ++i)
        c.append({ReviewAction(int(A::Reason1) + i), QStringLiteral("reason%1").arg(i + 1),
                  QStringLiteral("Reason %1").arg(i + 1),
                  QStringLiteral("Choose reason code %1 for the next decision (again: clear it)").arg(i + 1),
                  QKeySequence(Qt::Key(Qt::Key_1 + i))});
    return c;
}
}  // namespace

const QList<ShortcutInfo>& shortcutCatalog()
{
    static const QList<ShortcutInfo> catalog = makeCatalog();
    return catalog;
}

const ShortcutInfo& shortcutInfo(ReviewAction a)
{
    for (const ShortcutInfo& info : shortcutCatalog())
        if (info.action == a)
            return info;
    Q_UNREACHABLE();
}

std::optional<ReviewAction> reviewActionFromId(const QString& id)
{
    for (const ShortcutInfo& info : shortcutCatalog())
        if (info.id == id)
            return info.action;
    return std::nullopt;
}

std::optional<int> reasonIndex(ReviewAction a)
{
    const int i = int(a) - int(ReviewAction::Reason1);
    return i >= 0 && i < kMaxReasonCodes ? std::optional<int>(i) : std::nullopt;
}

bool isPlainKey(QKeyCombination key)
{
    return !(key.keyboardModifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
}

ShortcutMap::ShortcutMap()
{
    resetToDefaults();
}

void ShortcutMap::resetToDefaults()
{
    for (const ShortcutInfo& info : shortcutCatalog())
        m_keys[std::size_t(info.action)] = info.defaultKey;
}

std::optional<ReviewAction> ShortcutMap::actionFor(const QKeySequence& key) const
{
    if (key.isEmpty())
        return std::nullopt;
    for (std::size_t i = 0; i < m_keys.size(); ++i)
        if (m_keys[i] == key)
            return ReviewAction(int(i));
    return std::nullopt;
}

Status ShortcutMap::check(ReviewAction a, const QKeySequence& key) const
{
    if (key.isEmpty())
        return {};
    const QString name = key.toString(QKeySequence::NativeText);
    if (key.count() > 1)
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("%1 is a sequence of keys; a review action takes a single key").arg(name));
    if (key[0].key() == Qt::Key_unknown)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("%1 is not a key").arg(name));
    const Qt::Key k = key[0].key();
    if (k == Qt::Key_Tab || k == Qt::Key_Backtab || k == Qt::Key_Escape)
        return makeError(
            ErrorCode::InvalidInput,
            QStringLiteral("%1 is reserved: Tab moves the focus and Esc leaves the comment field").arg(name));
    if (auto other = actionFor(key); other && *other != a)
        return makeError(ErrorCode::Conflict,
                         QStringLiteral("%1 is already the key of \"%2\": give that action another "
                                        "key first")
                             .arg(name, shortcutInfo(*other).text));
    return {};
}

Status ShortcutMap::setKey(ReviewAction a, const QKeySequence& key)
{
    if (Status s = check(a, key); !s)
        return s;
    m_keys[std::size_t(a)] = key;
    return {};
}

QStringList ShortcutMap::load(QSettings& settings)
{
    resetToDefaults();
    // Stored keys first, then the defaults of the others: an action keeps a key unless one earlier in the
    // catalogue already holds it.
    std::array<QKeySequence, kReviewActionCount> wanted = m_keys;
    QStringList problems;
    settings.beginGroup(kGroup);
    for (const ShortcutInfo& info : shortcutCatalog()) {
        if (!settings.contains(info.id))
            continue;
        const QString text = settings.value(info.id).toString();
        const QKeySequence key = QKeySequence::fromString(text, QKeySequence::PortableText);
        if (!text.isEmpty() && (key.isEmpty() || key[0].key() == Qt::Key_unknown)) {
            problems.append(
                QStringLiteral("\"%1\": stored key \"%2\" is not a key; the default is used").arg(info.text, text));
            continue;
        }
        wanted[std::size_t(info.action)] = key;
    }
    settings.endGroup();
    m_keys.fill(QKeySequence());
    for (const ShortcutInfo& info : shortcutCatalog()) {
        const QKeySequence key = wanted[std::size_t(info.action)];
        if (Status s = check(info.action, key); !s) {
            problems.append(QStringLiteral("\"%1\" has no key: %2").arg(info.text, s.error().message));
            continue;
        }
        m_keys[std::size_t(info.action)] = key;
    }
    return problems;
}

void ShortcutMap::save(QSettings& settings) const
{
    settings.beginGroup(kGroup);
    for (const ShortcutInfo& info : shortcutCatalog()) {
        const QKeySequence key = m_keys[std::size_t(info.action)];
        if (key == info.defaultKey)
            settings.remove(info.id);
        else
            settings.setValue(info.id, key.toString(QKeySequence::PortableText));
    }
    settings.endGroup();
}

}  // namespace km::ui
