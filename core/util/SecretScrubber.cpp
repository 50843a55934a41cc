#include "util/SecretScrubber.h"

#include <QMutex>
#include <QUrl>
#include <algorithm>
#include <cstdio>

namespace km {

namespace {
QString jsonEscaped(const QString& s)
{
    QString out;
    for (const QChar c : s) {
        switch (c.unicode()) {
        case '"': out += QStringLiteral("\\\""); break;
        case '\\': out += QStringLiteral("\\\\"); break;
        case '/': out += QStringLiteral("\\/"); break;
        default: out += c;
        }
    }
    return out;
}
}  // namespace

void SecretScrubber::add(const QString& secret)
{
    const QString s = secret.trimmed();
    if (s.size() < kMinLength)
        return;
    const QByteArray utf8 = s.toUtf8();
    for (const QString& form :
         {s, jsonEscaped(s), QString::fromLatin1(QUrl::toPercentEncoding(s)), QString::fromLatin1(utf8.toBase64()),
          QString::fromLatin1(utf8.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals))}) {
        if (!m_forms.contains(form))
            m_forms.append(form);
    }
    std::stable_sort(m_forms.begin(), m_forms.end(),
                     [](const QString& a, const QString& b) { return a.size() > b.size(); });
}

QString SecretScrubber::scrub(QString text) const
{
    for (const QString& form : m_forms)
        text.replace(form, kRedactedText);
    return text;
}

QByteArray SecretScrubber::scrub(QByteArray bytes) const
{
    for (const QString& form : m_forms)
        bytes.replace(form.toUtf8(), kRedactedText.toUtf8());
    return bytes;
}

QVariantMap SecretScrubber::scrub(const QVariantMap& map) const
{
    QVariantMap out;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        out.insert(scrub(it.key()), scrub(it.value()));
    return out;
}

QVariant SecretScrubber::scrub(const QVariant& value) const
{
    if (isEmpty())
        return value;
    switch (value.typeId()) {
    case QMetaType::QString: return scrub(value.toString());
    case QMetaType::QByteArray: return scrub(value.toByteArray());
    case QMetaType::QStringList: {
        QStringList out;
        for (const QString& s : value.toStringList())
            out.append(scrub(s));
        return out;
    }
    case QMetaType::QVariantList: {
        QVariantList out;
        for (const QVariant& v : value.toList())
            out.append(scrub(v));
        return out;
    }
    case QMetaType::QVariantMap: return scrub(value.toMap());
    default: return value;
    }
}

namespace {
QMutex logMutex;
SecretScrubber logSecrets;  // guarded by logMutex
QtMessageHandler previousHandler = nullptr;

void scrubbingHandler(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    QString text;
    {
        const QMutexLocker lock(&logMutex);
        text = logSecrets.scrub(message);
    }
    if (previousHandler)
        previousHandler(type, context, text);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, text)));
}
}  // namespace

void scrubLogMessages(const SecretScrubber& secrets)
{
    const QMutexLocker lock(&logMutex);
    logSecrets = secrets;
    static bool installed = false;
    if (!installed)
        previousHandler = qInstallMessageHandler(scrubbingHandler);  // Qt: the default handler when none was set
    installed = true;
}

}  // namespace km
