#pragma once
// Server-sent events (the WHATWG event-stream format) parsed incrementally from bytes in any chunking, and the
// folding of Chat Completions stream chunks into a ChatReply. Pure: no I/O, usable on any thread.

#include "agent/ChatTypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

namespace km {

struct SseEvent {
    QString type;     // the `event:` field; empty means "message"
    QByteArray data;  // the `data:` lines joined by '\n'
    QString id;
    bool operator==(const SseEvent&) const = default;
};

// Feed bytes as they arrive; complete events come out. Lines end in LF, CRLF or CR (also split across chunks);
// `:` lines are comments; an empty line dispatches the event being built.
class SseParser {
public:
    QList<SseEvent> feed(QByteArrayView bytes);
    // End of stream: an event whose last line was complete is dispatched even without the closing blank line
    // (lenient: some servers close right after it); an event cut off mid-line is dropped whole.
    QList<SseEvent> finish();

private:
    void line(QByteArrayView l, QList<SseEvent>* out);
    void dispatch(QList<SseEvent>* out);

    QByteArray m_line;  // the incomplete line so far
    QByteArray m_data;
    QString m_type;
    QString m_id;
    bool m_hasData = false;
    bool m_afterCr = false;  // the last byte was CR: a following LF belongs to it
    bool m_started = false;  // past the optional UTF-8 BOM
};

// Whether an event's data is the end marker of an OpenAI stream.
bool isStreamDone(const SseEvent& event);

// Folds the data of one stream chunk (a chat.completion.chunk object) into `reply`: appends
// choices[0].delta.content and returns that delta (empty when the chunk has none); records finish_reason, usage
// and model when present; appends the data to rawResponse. `index` (0-based) names the chunk in errors.
// Malformed JSON and in-stream error objects are errors (ErrorCode::Io: the server's fault).
Result<QString> foldStreamChunk(ChatReply& reply, const QByteArray& data, int index);

// The incremental form of foldStream, for a stream still arriving. Events after [DONE] are ignored.
class StreamFold {
public:
    // Folds one event; returns its content delta. An `event: error` or a malformed chunk is an error.
    Result<QString> add(const SseEvent& event);
    bool done() const { return m_done; }  // [DONE] seen
    bool complete() const { return m_done || !m_reply.finishReason.isEmpty(); }
    const ChatReply& reply() const { return m_reply; }

private:
    ChatReply m_reply;
    int m_index = 0;
    bool m_done = false;
};

// A whole stream at once: events up to [DONE] folded into a reply. A stream that ends without [DONE] and without a
// finish_reason is truncated: an error.
Result<ChatReply> foldStream(const QList<SseEvent>& events);

}  // namespace km
