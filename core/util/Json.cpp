#include "util/Json.h"

#include <QStringDecoder>
#include <QVariantList>
#include <QVariantMap>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

// Reading is nlohmann-json's SAX parser: the handler below builds the QVariant directly (so integers and floats stay
// apart, duplicate keys and nesting deeper than kMaxDepth are refused) and turns nlohmann's errors into the reasons
// and positions the hand-written reader it replaced gave. Writing is in JsonWrite.cpp.

namespace km::json {
namespace {

constexpr int kMaxDepth = 256;

// An input iterator that tells the handler how far nlohmann's lexer has read: a SAX callback gets no position,
// and a duplicate key or a number that does not fit is reported where its token starts.
class Cursor {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    Cursor(const char* p, const char** furthest) : m_p(p), m_furthest(furthest) {}
    reference operator*() const { return *m_p; }
    Cursor& operator++()
    {
        *m_furthest = ++m_p;
        return *this;
    }
    Cursor operator++(int)
    {
        Cursor before = *this;
        ++*this;
        return before;
    }
    bool operator==(const Cursor& o) const { return m_p == o.m_p; }
    bool operator!=(const Cursor& o) const { return m_p != o.m_p; }

private:
    const char* m_p;
    const char** m_furthest;
};

bool isNumberChar(char c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

bool isNumberStart(char c)
{
    return c == '-' || (c >= '0' && c <= '9');
}

// nlohmann's message for a syntax error: "... syntax error while parsing <context> - <detail>", where the detail is
// the lexer's reason ("invalid literal; last read: '...'") or "unexpected <token>; expected <token>".
struct SyntaxError {
    std::string context;
    std::string detail;
    bool starts(const char* prefix) const { return detail.rfind(prefix, 0) == 0; }
};

SyntaxError syntaxError(const std::string& what)
{
    static const std::string kWhile = "while parsing ";
    const std::size_t c = what.find(kWhile);
    if (c == std::string::npos)
        return {};
    const std::size_t dash = what.find(" - ", c);
    if (dash == std::string::npos)
        return {};
    return {what.substr(c + kWhile.size(), dash - c - kWhile.size()), what.substr(dash + 3)};
}

// Text with ill-formed UTF-8 replaced by U+FFFD, as QString::fromUtf8 reads it, and where each of its bytes was in
// the original (for error positions). Invalid sequences never span an ASCII byte, so runs of non-ASCII bytes are
// repaired one by one.
struct RepairedUtf8 {
    QByteArray text;
    std::vector<qsizetype> origin;  // one more entry than text has bytes: the end
};

RepairedUtf8 repairUtf8(const QByteArray& s)
{
    RepairedUtf8 r;
    for (qsizetype i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            r.text.append(s[i]);
            r.origin.push_back(i++);
            continue;
        }
        qsizetype j = i + 1;
        while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x80)
            ++j;
        QStringDecoder decode(QStringDecoder::Utf8,
                              QStringDecoder::Flag::Stateless | QStringDecoder::Flag::ConvertInitialBom);
        const QByteArray run = QString(decode(QByteArrayView(s).sliced(i, j - i))).toUtf8();
        r.text.append(run);
        for (qsizetype k = 0; k < run.size(); ++k)
            r.origin.push_back(std::min(i + k, j - 1));
        i = j;
    }
    r.origin.push_back(s.size());
    return r;
}

// nlohmann-json's SAX handler: builds the QVariant and turns errors into reasons and positions.
class Builder {
public:
    Builder(const QByteArray& text, const QByteArray& original, std::vector<qsizetype> origin)
        : m_s(text)
        , m_original(original)
        , m_origin(std::move(origin))
        , m_furthest(text.constData())
    {
    }

    std::optional<QVariant> parse(ParseError* error)
    {
        if (m_s.startsWith('\xEF')) {  // nlohmann skips a UTF-8 byte order mark; this reader never did
            fail(QStringLiteral("unexpected character '%1'").arg(charAt(0)), 0);
        } else if (nlohmann::json::sax_parse(Cursor(m_s.constData(), &m_furthest),
                                             Cursor(m_s.constData() + m_s.size(), &m_furthest), this)) {
            // nlohmann ends the input at a NUL byte; the last byte it read is one only then
            if (read() > 0 && m_s[read() - 1] == '\0')
                fail(QStringLiteral("unexpected text after the JSON value"), read() - 1);
        } else {
            fail(QStringLiteral("unreadable JSON"), read());  // kept only where no reason was given already
        }
        if (m_reason.isEmpty())
            return m_root;
        if (error)
            *error = where();
        return std::nullopt;
    }

    // nlohmann's SAX interface
    bool null()
    {
        return add(QVariant(), [this] { return read() - 4; });
    }
    bool boolean(bool b)
    {
        return add(QVariant(b), [this, b] { return read() - (b ? 4 : 5); });
    }
    bool number_integer(std::int64_t i)
    {
        return add(QVariant(qint64(i)), [this] { return numberRead(); });
    }
    bool number_unsigned(std::uint64_t u)
    {
        // Beyond qint64 an integer reads as the nearest double, as it always did.
        const QVariant v =
            u > std::uint64_t(std::numeric_limits<qint64>::max()) ? QVariant(double(u)) : QVariant(qint64(u));
        return add(v, [this] { return numberRead(); });
    }
    bool number_float(double, const std::string& text)
    {
        // Qt's reading of the text, which also refuses underflow to zero ("1e-400"); nlohmann refuses overflow only.
        bool ok = false;
        const double d = QByteArray::fromStdString(text).toDouble(&ok);
        if (!ok || !std::isfinite(d))
            return fail(QStringLiteral("malformed number '%1'").arg(numberText(numberRead())), numberRead());
        return add(QVariant(d), [this] { return numberRead(); });
    }
    bool string(std::string& s)
    {
        return add(QString::fromStdString(s), [this] { return stringStart(read() - 1); });
    }
    bool binary(nlohmann::json::binary_t&) { return fail(QStringLiteral("binary value"), read()); }  // not in JSON text
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool key(std::string& k)
    {
        m_stack.back().key = QString::fromStdString(k);
        m_stack.back().keyStart = stringStart(read() - 1);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t position, const std::string& lastToken, const nlohmann::detail::exception& ex);

private:
    struct Frame {
        bool object = false;
        QVariantMap map;
        QVariantList list;
        QString key;
        qsizetype keyStart = 0;
    };

    qsizetype read() const { return m_furthest - m_s.constData(); }
    QChar charAt(qsizetype pos) const
    {
        const qsizetype p = m_origin.empty() ? pos : m_origin[std::size_t(pos)];
        return QChar::fromLatin1(p < m_original.size() ? m_original[p] : '\0');
    }
    // The opening quote of the string whose closing quote (or the character that broke it) is at `close`: the
    // first quote before it that is not escaped by an odd run of backslashes.
    qsizetype stringStart(qsizetype close) const
    {
        for (qsizetype i = close - 1; i >= 0; --i) {
            if (m_s[i] != '"')
                continue;
            qsizetype slashes = 0;
            while (i - slashes - 1 >= 0 && m_s[i - slashes - 1] == '\\')
                ++slashes;
            if (slashes % 2 == 0)
                return i;
        }
        return 0;
    }
    // The start of the number that ends before `end`: back over number characters, then on to its first '-' or
    // digit (a literal's 'e' may come right before it).
    qsizetype numberStart(qsizetype end) const
    {
        qsizetype p = end;
        while (p > 0 && isNumberChar(m_s[p - 1]))
            --p;
        while (p < end - 1 && !isNumberStart(m_s[p]))
            ++p;
        return p;
    }
    // In a SAX callback for a number the lexer has read one character past it, unless the input ended there.
    qsizetype numberRead() const
    {
        const qsizetype p = read();
        return numberStart(p > 0 && !isNumberChar(m_s[p - 1]) ? p - 1 : p);
    }
    QString numberText(qsizetype start) const
    {
        qsizetype end = start;
        while (end < m_s.size() && isNumberChar(m_s[end]))
            ++end;
        return QString::fromLatin1(m_s.mid(start, end - start));
    }
    qsizetype tokenStart(const SyntaxError& e, const std::string& token, qsizetype at, qsizetype end) const;

    template <typename Start> bool add(QVariant v, Start start)
    {
        if (m_stack.size() > kMaxDepth)
            return fail(QStringLiteral("nesting deeper than %1 levels").arg(kMaxDepth), start());
        return insert(std::move(v));
    }
    bool insert(QVariant v)
    {
        if (m_stack.empty()) {
            m_root = std::move(v);
            return true;
        }
        Frame& f = m_stack.back();
        if (!f.object) {
            f.list.append(std::move(v));
            return true;
        }
        // Checked once the value is read, as always: an error inside the value is reported first.
        if (f.map.contains(f.key))
            return fail(QStringLiteral("duplicate key \"%1\"").arg(f.key), f.keyStart);
        f.map.insert(f.key, v);
        return true;
    }
    bool open(bool object)
    {
        if (m_stack.size() > kMaxDepth)
            return fail(QStringLiteral("nesting deeper than %1 levels").arg(kMaxDepth), read() - 1);
        m_stack.emplace_back().object = object;
        return true;
    }
    bool close()
    {
        Frame f = std::move(m_stack.back());
        m_stack.pop_back();
        return insert(f.object ? QVariant(f.map) : QVariant(f.list));  // implicitly shared: no copy
    }
    bool fail(const QString& reason, qsizetype at)
    {
        if (m_reason.isEmpty()) {
            m_reason = reason;
            m_failPos = at;
        }
        return false;
    }
    ParseError where() const
    {
        ParseError e{1, 1, m_reason};
        const qsizetype end = m_origin.empty() ? m_failPos : m_origin[std::size_t(m_failPos)];
        for (qsizetype i = 0; i < end && i < m_original.size(); ++i) {
            if (m_original[i] == '\n') {
                ++e.line;
                e.column = 1;
            } else {
                ++e.column;
            }
        }
        return e;
    }

    const QByteArray& m_s;
    const QByteArray& m_original;
    const std::vector<qsizetype> m_origin;  // empty when m_s is the original
    const char* m_furthest;
    std::vector<Frame> m_stack;
    std::optional<QVariant> m_root;
    qsizetype m_failPos = 0;
    QString m_reason;
};

// Where the token nlohmann stopped at begins. `at` is the character the lexer stopped on (the size at the end of
// the input), `end` where the lexer's position is. nlohmann's token string is the token for a string or a number
// (with a control character shown as "<U+001F>"), but runs on from the last of those for any other token.
qsizetype Builder::tokenStart(const SyntaxError& e, const std::string& token, qsizetype at, qsizetype end) const
{
    if (e.starts("invalid string") || e.starts("invalid number") || e.starts("unexpected string literal") ||
        e.starts("unexpected number literal")) {
        qsizetype length = qsizetype(token.size());
        if (at < end && static_cast<unsigned char>(m_s[at]) < 0x20)
            length -= 7;
        return std::max<qsizetype>(0, end - length);
    }
    if (e.starts("invalid literal")) {
        for (qsizetype p = at - 1; p >= 0 && p >= at - 4; --p) {
            const char* word = m_s[p] == 't' ? "true" : m_s[p] == 'f' ? "false" : m_s[p] == 'n' ? "null" : nullptr;
            if (word && qsizetype(qstrlen(word)) > at - p && qstrncmp(m_s.constData() + p, word, uint(at - p)) == 0)
                return p;
        }
        return at;  // a character no token starts with
    }
    if (e.starts("unexpected true literal") || e.starts("unexpected null literal"))
        return end - 4;
    if (e.starts("unexpected false literal"))
        return end - 5;
    if (e.starts("unexpected end of input"))
        return at;   // the end, or a NUL byte
    return end - 1;  // a structural character
}

// nlohmann's errors as the reasons and positions of the hand-written reader this replaced, which callers and users
// see: what the reader expected, where the offending token starts.
bool Builder::parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex)
{
    const bool endOfInput = qsizetype(position) > m_s.size();  // nlohmann counts reading the end as a character
    const qsizetype end = std::min(qsizetype(position), m_s.size());
    const qsizetype at = endOfInput ? m_s.size() : qsizetype(position) - 1;
    if (ex.id == 406) {  // a float beyond double; the position is the end of the number
        const qsizetype number = numberStart(end);
        return fail(QStringLiteral("malformed number '%1'").arg(numberText(number)), number);
    }
    const SyntaxError e = syntaxError(ex.what());
    const qsizetype start = tokenStart(e, token, at, end);
    const char first = start < m_s.size() ? m_s[start] : '\0';
    const bool lexerError = e.starts("invalid");

    // A number glued to what follows ("1.5.5", "1-"): the hand-written reader read all of it as one number.
    const qsizetype number = isNumberChar(first) ? numberStart(start + 1) : start;
    if (number < start)
        return fail(QStringLiteral("malformed number '%1'").arg(numberText(number)), number);
    if (m_root)
        return fail(QStringLiteral("unexpected text after the JSON value"), start);
    if (e.context == "object separator")
        return fail(QStringLiteral("expected ':' after key \"%1\"").arg(m_stack.back().key), start);
    if (e.context == "object key" && (!lexerError || first != '"'))
        return fail(QStringLiteral("expected a quoted object key"), start);
    if (e.context == "object")
        return fail(QStringLiteral("expected ',' or '}' in object"), start);
    if (e.context == "array")
        return fail(QStringLiteral("expected ',' or ']' in array"), start);
    // A value (or a key) was expected.
    if (e.starts("invalid string")) {
        if (e.starts("invalid string: '\\u' must be followed"))
            return fail(QStringLiteral("bad \\u escape"), m_s.lastIndexOf("\\u", at - 1) + 2);
        if (e.starts("invalid string: surrogate"))
            return fail(QStringLiteral("bad \\u escape (a UTF-16 surrogate without its pair)"), at);
        if (endOfInput)
            return fail(QStringLiteral("unterminated string"), start);
        if (e.starts("invalid string: control character"))
            return fail(QStringLiteral("control character in string (escape it)"), at);
        return fail(QStringLiteral("unknown escape '\\%1'").arg(charAt(at)), at);
    }
    if (e.starts("invalid number"))
        return fail(QStringLiteral("malformed number '%1'").arg(numberText(start)), start);
    if (start >= m_s.size())
        return fail(QStringLiteral("unexpected end of input"), m_s.size());
    return fail(QStringLiteral("unexpected character '%1'").arg(charAt(start)), start);
}

}  // namespace

std::optional<QVariant> parse(const QByteArray& text, ParseError* error)
{
    // nlohmann refuses ill-formed UTF-8 in a string; this reader always read it as U+FFFD, as QString::fromUtf8 does.
    if (!QByteArrayView(text).isValidUtf8()) {
        RepairedUtf8 repaired = repairUtf8(text);
        return Builder(repaired.text, text, std::move(repaired.origin)).parse(error);
    }
    return Builder(text, text, {}).parse(error);
}

}  // namespace km::json
