#pragma once
// The review actions (id, default key, description) and the key each is mapped to. A value; no widgets.
// One key per action, one action per key: setKey() refuses a conflict with a message naming the other action.

#include "util/Result.h"

#include <QKeySequence>
#include <QList>
#include <array>
#include <optional>

class QSettings;

namespace km::ui {

enum class ReviewAction {
    Accept,
    Reject,
    NeedsChanges,
    ChooseAccept,  // choose a decision without recording it, then write a comment; Save records it
    ChooseReject,
    ChooseNeedsChanges,
    Save,
    Skip,
    Undo,
    Comment,
    Help,
    Reason1,  // Reason1 .. Reason9: consecutive
    Reason2,
    Reason3,
    Reason4,
    Reason5,
    Reason6,
    Reason7,
    Reason8,
    Reason9,
};
inline constexpr int kReviewActionCount = int(ReviewAction::Reason9) + 1;

struct ShortcutInfo {
    ReviewAction action;
    QString id;  // settings key and test handle: "accept", "reason1"
    QString text;
    QString description;
    QKeySequence defaultKey;
};

// Every action, in the order menus and the help list show them.
const QList<ShortcutInfo>& shortcutCatalog();
const ShortcutInfo& shortcutInfo(ReviewAction a);
std::optional<ReviewAction> reviewActionFromId(const QString& id);
// 0 for Reason1 .. 8 for Reason9; nullopt for the other actions.
std::optional<int> reasonIndex(ReviewAction a);
// A key without Ctrl, Alt or Meta: text a text field would take. Review keys of that kind never fire while typing.
bool isPlainKey(QKeyCombination key);

class ShortcutMap {
public:
    ShortcutMap();  // every action on its default key

    QKeySequence key(ReviewAction a) const { return m_keys[std::size_t(a)]; }
    std::optional<ReviewAction> actionFor(const QKeySequence& key) const;
    // An empty key leaves the action without one. Refused: a sequence of several keys, Tab and Esc (they move
    // focus and leave the comment field), and a key another action has.
    Status setKey(ReviewAction a, const QKeySequence& key);
    void resetToDefaults();

    // "review/shortcuts/<id>" in PortableText; only keys that differ from the default are written. A stored key
    // that is unreadable or taken by an action earlier in the catalogue is not applied: load() says which.
    QStringList load(QSettings& settings);
    void save(QSettings& settings) const;

    bool operator==(const ShortcutMap&) const = default;

private:
    Status check(ReviewAction a, const QKeySequence& key) const;

    std::array<QKeySequence, kReviewActionCount> m_keys;
};

}  // namespace km::ui
