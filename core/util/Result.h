#pragma once
// Expected failures as values: Result<T> holds a T or an Error. No exception crosses a core API.

#include <QString>
#include <optional>
#include <utility>
#include <variant>

namespace km {

enum class ErrorCode {
    InvalidInput,  // the user gave something malformed
    NotFound,
    Conflict,
    Io,        // file system
    Database,  // SQLite
    Unsupported,
    Internal,
    Cancelled,  // a state, not a failure: the caller asked to stop; report it quietly, never as an error
};

struct Error {
    ErrorCode code = ErrorCode::Internal;
    QString message;  // one line a user can act on: what was wrong and where
    QString detail;   // raw material: SQL error, stderr, HTTP body
};

inline Error makeError(ErrorCode code, QString message, QString detail = {})
{
    return Error{code, std::move(message), std::move(detail)};
}

template <typename T> class [[nodiscard]] Result {
public:
    Result(T value) : m_value(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : m_value(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return std::holds_alternative<T>(m_value); }
    explicit operator bool() const { return ok(); }
    const T& value() const& { return std::get<T>(m_value); }
    T& value() & { return std::get<T>(m_value); }
    T value() && { return std::get<T>(std::move(m_value)); }  // by value: safe in range-for over a temporary
    const T* operator->() const { return &std::get<T>(m_value); }
    const T& operator*() const& { return std::get<T>(m_value); }
    const Error& error() const { return std::get<Error>(m_value); }

private:
    std::variant<T, Error> m_value;
};

// Result of an operation that returns nothing but may fail.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)) {}  // NOLINT(google-explicit-constructor)
    static Status success() { return {}; }
    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return *m_error; }

private:
    std::optional<Error> m_error;
};

}  // namespace km
