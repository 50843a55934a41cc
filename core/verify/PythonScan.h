#pragma once
// A small tokenizer of Python source for the static checks: tokens with their lines, code told from strings (comments
// are dropped), and the compound statements (class, def, try and its handlers) as token ranges. Pure functions.

#include <QList>
#include <QString>

namespace km {

struct PyToken {
    enum class Kind { Name, Number, String, Op, Newline };
    Kind kind = Kind::Op;
    QString text;         // as written; a String holds what lies between its quotes, escapes not decoded
    int line = 0;         // 1-based line where the token starts
    int indent = 0;       // indentation (columns) of the logical line that holds the token
    int depth = 0;        // brackets open around the token (an opening bracket counts as outside)
    bool triple = false;  // String: triple-quoted
    bool raw = false;     // String: r prefix
};

// A compound statement's body as a token range. Else/Except/Finally are only those of a try.
struct PyBlock {
    enum class Kind { Class, Def, Try, Except, Else, Finally };
    Kind kind = Kind::Def;
    QString name;    // Class, Def: the name defined
    int header = 0;  // token index of the keyword
    int begin = 0;   // body tokens [begin, end)
    int end = 0;
    int line = 0;        // line of the keyword
    int tryHeader = -1;  // Except, Else, Finally: header of their try
};

struct PyScan {
    QList<PyToken> tokens;  // a Newline token ends every logical line
    QList<PyBlock> blocks;  // in source order, so an enclosing block comes before the blocks it holds
    int errorLine = 0;      // first line that does not tokenize (unterminated string); 0 when all of it does
};

// Never fails: what does not tokenize is skipped (an unterminated string runs to the end of its line or file).
PyScan scanPython(const QString& source);

// True for the Op, Name or Newline token `text` at index i (false past the end).
bool isToken(const QList<PyToken>& t, qsizetype i, const QString& text);
// Index of the bracket closing the one at `open`; t.size() when it is not closed.
qsizetype closingBracket(const QList<PyToken>& t, qsizetype open);
bool isPythonKeyword(const QString& name);

}  // namespace km
