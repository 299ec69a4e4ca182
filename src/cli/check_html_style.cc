#include "cli/check_html_style.h"

namespace segfeed::cli {

const char* const kCheckHtmlStyle = R"css(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 0 auto; max-width: 1160px; padding: 16px 24px; color: #1b1b1b; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 2px solid #d8dde6; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 4px; font-weight: 700; }
.verdict.clean { background: #dff3e4; color: #10522a; }
.verdict.problems { background: #fde2e1; color: #8a1c17; }
.meta { color: #444; font-size: 12px; margin: 2px 0; overflow-wrap: anywhere; }
code { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
table { border-collapse: collapse; margin: 4px 0 10px; }
th, td { border: 1px solid #d8dde6; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f2f4f8; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.cols { display: flex; flex-wrap: wrap; gap: 8px 32px; align-items: flex-start; }
table.problems { width: 100%; table-layout: fixed; }
.problems col.thumb { width: 336px; }
.problems col.file { width: 30%; }
.problems col.kind { width: 140px; }
.problems td { overflow-wrap: anywhere; }
.problems td.thumb { white-space: nowrap; }
.problems td.thumb img { margin-right: 4px; }
.problem-list > input { margin: 0 3px 8px 12px; }
.problem-list > label { cursor: pointer; }
figure { margin: 0; }
.grid { display: flex; flex-wrap: wrap; gap: 10px; }
.grid figure { width: 164px; }
figcaption { font-size: 11px; color: #333; overflow-wrap: anywhere; }
img { display: inline-block; border: 1px solid #888; image-rendering: auto; }
.legend { font-size: 12px; margin: 4px 0 8px; }
.swatch { display: inline-block; width: 11px; height: 11px; border: 1px solid #555;
          vertical-align: -1px; margin: 0 3px 0 10px; }
svg.chart { font-size: 11px; max-width: 100%; height: auto; }
svg.chart text { fill: #1b1b1b; }
.note { color: #555; font-size: 12px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  .filter, .problem-list > input { display: none; }
  .problems tr.problem { display: table-row !important; }
  figure, table, svg { break-inside: avoid; }
  h2 { break-after: avoid; }
}
)css";

}  // namespace segfeed::cli
