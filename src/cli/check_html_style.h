#pragma once

namespace segfeed::cli {

// The HTML report's stylesheet, inlined in its <style>: system fonts only
// (nothing fetched), the problem filter's rules (one radio button per kind,
// added by the report), and a print layout that shows every problem row
// and keeps figures whole.
extern const char* const kCheckHtmlStyle;

}  // namespace segfeed::cli
