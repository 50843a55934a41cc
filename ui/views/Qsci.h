#pragma once
// QScintilla's headers use the 'slots'/'signals' keywords, which the project disables (QT_NO_KEYWORDS).

#define slots Q_SLOTS
#define signals Q_SIGNALS
#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>
#undef slots
#undef signals
