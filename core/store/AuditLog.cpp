#include "store/AuditLog.h"

#include "store/Database.h"
#include "util/Json.h"

#include <QDateTime>

namespace km::store {

QString nowText()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

Status appendAudit(Database& db, const QString& actor, const QString& entity, const QString& entityId,
                   const QString& action, const QString& reason, const QVariantMap& detail)
{
    auto q = db.exec(QStringLiteral("INSERT INTO audit_log(at, actor, entity, entity_id, action, reason, detail) "
                                    "VALUES (?,?,?,?,?,?,?)"),
                     {nowText(), actor, entity, entityId, action, reason, QString::fromUtf8(json::write(detail))});
    if (!q)
        return q.error();
    return {};
}

}  // namespace km::store
