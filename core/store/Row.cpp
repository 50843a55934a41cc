#include "store/Row.h"

#include "util/Logging.h"

#include <QSqlRecord>
#include <cstring>

namespace km::store {

int Row::index(const char* column)
{
    for (const auto& [name, i] : m_indexes)
        if (name == column || std::strcmp(name, column) == 0)
            return i;
    const int i = m_q.record().indexOf(QLatin1String(column));
    m_indexes.emplace_back(column, i);
    if (i < 0 && m_missing.isEmpty()) {
        m_missing = QLatin1String(column);
        qCWarning(lcStore).noquote() << "column" << m_missing << "missing from the query" << m_q.lastQuery();
    }
    return i;
}

QVariant Row::value(const char* column)
{
    const int i = index(column);
    return i < 0 ? QVariant() : m_q.value(i);
}

bool Row::isNull(const char* column)
{
    const int i = index(column);
    return i < 0 || m_q.isNull(i);
}

std::optional<double> Row::optionalReal(const char* column)
{
    if (isNull(column))
        return std::nullopt;
    return value(column).toDouble();
}

Status Row::status() const
{
    if (m_missing.isEmpty())
        return {};
    return makeError(ErrorCode::Database, QStringLiteral("column %1 missing from the query").arg(m_missing),
                     m_q.lastQuery());
}

}  // namespace km::store
