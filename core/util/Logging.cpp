#include "util/Logging.h"

namespace km {
Q_LOGGING_CATEGORY(lcStore, "kmosaic.store", QtWarningMsg)
Q_LOGGING_CATEGORY(lcCurate, "kmosaic.curate", QtWarningMsg)
Q_LOGGING_CATEGORY(lcCli, "kmosaic.cli", QtWarningMsg)
Q_LOGGING_CATEGORY(lcVerify, "kmosaic.verify", QtWarningMsg)
Q_LOGGING_CATEGORY(lcAgent, "kmosaic.agent", QtWarningMsg)
}  // namespace km
