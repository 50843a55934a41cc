#include "toolchain/SanitizerReport.h"

#include <QRegularExpression>
#include <QStringList>

namespace km {

namespace {

// "void scale<float>(const float *, float *, long)" -> "scale<float>": the parameter list (the parenthesis that
// closes the text and its match) and a leading return type go.
QString functionName(QString signature)
{
    signature = signature.trimmed();
    if (signature.endsWith(QLatin1Char(')'))) {
        int depth = 0;
        for (qsizetype i = signature.size() - 1; i >= 0; --i) {
            if (signature[i] == QLatin1Char(')'))
                ++depth;
            else if (signature[i] == QLatin1Char('(') && --depth == 0) {
                signature.truncate(i);
                break;
            }
        }
    }
    if (signature.startsWith(QLatin1String("void ")))
        signature.remove(0, 5);
    return signature.trimmed();
}

// Unindented lines of the report that are not errors: the banner, the summaries, the tool's own complaints.
bool isToolLine(const QString& content)
{
    static const char* const starts[] = {"COMPUTE-SANITIZER", "LEAK SUMMARY", "Target application", "Error:",
                                         "Warning:",          "Note:",        "Internal error:",    "This tool is "};
    for (const char* s : starts) {
        if (content.startsWith(QLatin1String(s)))
            return true;
    }
    return false;
}

}  // namespace

SanitizerReport parseMemcheck(const QString& text)
{
    static const QRegularExpression summary(QStringLiteral(R"re(^ERROR SUMMARY: ([\d,]+) errors?(.*)$)re"));
    static const QRegularExpression at(QStringLiteral(R"re(^at (.+?)(?:\+0x[0-9a-fA-F]+)?(?: in (.+))?$)re"));
    static const QRegularExpression by(QStringLiteral(R"re(^by thread (\([^)]*\)) in block (\([^)]*\)))re"));
    static const QLatin1String marker("=========");

    SanitizerReport r;
    int counted = 0;
    int summaryCount = 0;
    bool inError = false;  // lines belong to the error above until a blank report line or another unindented line
    SanitizerError* current = nullptr;  // null while in an error beyond the ones kept
    QStringList detail;
    const auto close = [&]() {
        if (current)
            current->detail = detail.join(QLatin1Char('\n'));
        detail.clear();
        current = nullptr;
        inError = false;
    };
    for (QString line : text.split(QLatin1Char('\n'))) {
        if (!line.startsWith(marker))
            continue;  // the program's own output, when the report went to its stdout
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        QString content = line.mid(marker.size());
        if (content.startsWith(QLatin1Char(' ')))
            content.remove(0, 1);
        const bool indented = content.startsWith(QLatin1Char(' ')) || content.startsWith(QLatin1Char('\t'));
        content = content.trimmed();
        if (content.isEmpty()) {
            close();
            continue;
        }
        if (!indented) {
            close();
            const QRegularExpressionMatch m = summary.match(content);
            if (m.hasMatch()) {
                // A second summary line counts what the print limit hid: "ERROR SUMMARY: 130 errors were not printed".
                if (!m.captured(2).contains(QLatin1String("not printed"))) {
                    r.complete = true;
                    summaryCount = m.captured(1).remove(QLatin1Char(',')).toInt();
                }
            } else if (!isToolLine(content)) {
                ++counted;
                inError = true;
                if (content.endsWith(QLatin1Char('.')))
                    content.chop(1);
                if (r.errors.size() < SanitizerReport::maxKeptErrors) {
                    r.errors.append({content, {}, {}, {}, {}});
                    current = &r.errors.last();
                }
            }
            continue;
        }
        if (!inError || !current)
            continue;
        if (content.startsWith(QLatin1String("Host Frame:")) || content.startsWith(QLatin1String("Device Frame:")) ||
            content.startsWith(QLatin1String("Saved host backtrace")))
            continue;
        QRegularExpressionMatch m;
        if (current->kernel.isEmpty() && (m = at.match(content)).hasMatch() &&
            !m.captured(1).startsWith(QLatin1String("0x"))) {
            current->kernel = functionName(m.captured(1));
            if (m.hasCaptured(2))
                detail << QStringLiteral("at ") + m.captured(2);
        } else if (current->thread.isEmpty() && (m = by.match(content)).hasMatch()) {
            current->thread = m.captured(1);
            current->block = m.captured(2);
        } else {
            detail << content;
        }
    }
    close();
    r.errorCount = r.complete ? summaryCount : counted;
    return r;
}

}  // namespace km
