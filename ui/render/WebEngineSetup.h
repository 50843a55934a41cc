#pragma once
// Process-wide preparation of Qt WebEngine (Chromium), which must happen before the QApplication exists.
// Main thread, before QApplication.

namespace km::ui {

// Call in main() before constructing QApplication, in the workbench and in every test that shows a SpecView.
// Sets Qt::AA_ShareOpenGLContexts (WebEngine needs it) and disableWebEngineSandboxIfRoot().
void prepareWebEngine();

// Chromium refuses to start as root with its sandbox on (CI and the tests run as root): when the effective user
// is root and QTWEBENGINE_DISABLE_SANDBOX is not set, sets it to 1. Returns whether the sandbox is now off.
// Safe to call again (SpecView does, before creating its first web view) as long as WebEngine has not started.
bool disableWebEngineSandboxIfRoot();

}  // namespace km::ui
