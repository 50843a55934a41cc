#include "verify/PoolProtocol.h"

#include "util/Json.h"

#include <QDir>
#include <unistd.h>

namespace km::pool {

QString defaultSocketPath()
{
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty() && QDir(runtime).exists())
        return runtime + QStringLiteral("/kmosaic-pool.sock");
    return QDir::tempPath() + QStringLiteral("/kmosaic-pool-%1.sock").arg(getuid());
}

QByteArray line(const QVariantMap& message)
{
    return json::write(message) + '\n';
}

QList<QVariantMap> takeMessages(QByteArray& buffer)
{
    QList<QVariantMap> out;
    qsizetype nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
        const QByteArray text = buffer.left(nl).trimmed();
        buffer.remove(0, nl + 1);
        if (text.isEmpty())
            continue;
        json::ParseError pe;
        const auto v = json::parse(text, &pe);
        if (!v || v->typeId() != QMetaType::QVariantMap)
            out.append({{QStringLiteral("error"), QStringLiteral("not a JSON object: %1").arg(pe.reason)}});
        else
            out.append(v->toMap());
    }
    return out;
}

}  // namespace km::pool
