// Copyright spate authors.
#pragma once

// The files of the monitoring server's Structured Streaming page (ui/streaming.html,
// ui/streaming.js, ui/streaming.css), embedded in the binary at build time by
// cmake/embed_ui.cmake, so the server serves them without touching the file system.
// docs/observability.md describes the page.
//
// Thread safety: the views point at constant static storage. Failure: none.

#include <string_view>

namespace spate::monitor {

/// The page's HTML shell (the list and the statistics pages are the same document).
std::string_view UiHtml();
/// Its script (charts drawn as inline SVG; no external library).
std::string_view UiScript();
/// Its style sheet.
std::string_view UiStyle();

}  // namespace spate::monitor
