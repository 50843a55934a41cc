#pragma once
// Builds the HTML page of a specification: Markdown through QTextDocument's importer with the math held out by
// placeholders, then each formula as an element that KaTeX (local files only) renders. Pure; needs a
// QGuiApplication (QTextDocument), any thread that may use QTextDocument.

#include <QString>
#include <QUrl>

namespace km::ui {

// The KaTeX folder: $KMOSAIC_KATEX_DIR, else the one configured at build time (Debian's libjs-katex:
// /usr/share/javascript/katex).
QString defaultKatexDir();

// Whether `dir` holds what the page loads: katex.min.js, katex.min.css and fonts/.
bool hasKatex(const QString& dir);

// file:///…/katex/ (with the trailing slash): the page's base URL, against which its relative references resolve.
QUrl katexBaseUrl(const QString& dir);

// The specification as an HTML fragment. Each formula becomes
// <span class="km-math km-inline|km-display">TeX, HTML-escaped</span>; raw HTML in the Markdown is shown as text;
// links and images are kept as inert text (their URL in a tooltip), so the fragment references nothing.
QString specBodyHtml(const QString& markdown);

struct SpecPageOptions {
    QString katexDir;  // used for the missing-KaTeX message only: references are relative to the base URL
    bool katexAvailable = true;
};

// A whole page, to be loaded with katexBaseUrl() as base URL. With KaTeX it links katex.min.css and
// katex.min.js (relative) and renders every .km-math with throwOnError off, so a bad formula shows red with its
// source; without KaTeX it says so and shows the TeX source. A Content-Security-Policy allows only file: scripts,
// styles and fonts, and inline script and style.
QString specPageHtml(const QString& markdown, const SpecPageOptions& options);

}  // namespace km::ui
