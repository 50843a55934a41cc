#pragma once
// Reads the current row of a query by column name: each name is resolved once per query (QSqlRecord::indexOf),
// so a SELECT whose column list changes cannot be read as garbage. A name the query lacks reads as null and is
// remembered: status() then says "column X missing". Lives with the query it reads, on that query's thread.

#include "util/Result.h"

#include <QList>
#include <QSqlQuery>
#include <optional>
#include <vector>

namespace km::store {

class Row {
public:
    explicit Row(const QSqlQuery& q) : m_q(q) {}
    explicit Row(QSqlQuery&&) = delete;  // it would read a query gone at the end of the statement

    QVariant value(const char* column);
    bool isNull(const char* column);
    QString text(const char* column) { return value(column).toString(); }
    qint64 integer(const char* column) { return value(column).toLongLong(); }
    std::optional<double> optionalReal(const char* column);

    // An error naming the first column read that the query does not return; ok when every one was there.
    Status status() const;

private:
    int index(const char* column);

    const QSqlQuery& m_q;
    std::vector<std::pair<const char*, int>> m_indexes;  // names as given, resolved once
    QString m_missing;
};

// Every row of `q` (positioned before the first), each read by `fromRow(Row&) -> Result<T>`: the first error stops.
template <typename T, typename FromRow> Result<QList<T>> readRows(QSqlQuery& q, FromRow fromRow)
{
    Row row(q);
    QList<T> out;
    while (q.next()) {
        Result<T> r = fromRow(row);
        if (!r)
            return r.error();
        out.append(std::move(r).value());
    }
    return out;
}

}  // namespace km::store
