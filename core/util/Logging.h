#pragma once
// Logging categories: log once, where an error is born.

#include <QLoggingCategory>

namespace km {
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcCurate)
Q_DECLARE_LOGGING_CATEGORY(lcCli)
Q_DECLARE_LOGGING_CATEGORY(lcVerify)
Q_DECLARE_LOGGING_CATEGORY(lcAgent)
}  // namespace km
