#pragma once
// The verification pool's socket protocol (docs/verifier.md, "Pool"): one JSON object per line, both ways.
//   client: {"id":N,"op":"hello"} | {"id":N,"op":"verify","request":{…harness request…}} | {"id":N,"op":"cancel"}
//           | {"id":N,"op":"shutdown"}
//   pool:   {"id":N,"event":"phase","phase":"…"} | {"id":N,"ok":true,"verdict":{…}} | {"id":N,"ok":true,"hello":{…}}
//           | {"id":N,"ok":false,"error":"…"}
// Pure helpers shared by the server and the client.

#include <QByteArray>
#include <QString>
#include <QVariantMap>

namespace km::pool {

// The socket a pool listens on when none is named: $XDG_RUNTIME_DIR/kmosaic-pool.sock, else
// <temp>/kmosaic-pool-<uid>.sock.
QString defaultSocketPath();

QByteArray line(const QVariantMap& message);  // compact JSON plus '\n'
// Splits complete lines off `buffer` (kept: the incomplete rest). A line that is not a JSON object yields an entry
// with "error" set.
QList<QVariantMap> takeMessages(QByteArray& buffer);

}  // namespace km::pool
