// The HTML report's parts that need no dataset: escaping and the SVG
// charts. tests/python/test_check_report.py loads whole reports in a
// browser.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli/check_html_charts.h"
#include "cli/check_html_text.h"

namespace segfeed::cli {
namespace {

TEST(CheckHtmlTest, EscapesMetacharactersAndShowsBytesThatAreNotUtf8) {
  EXPECT_EQ(HtmlText("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(HtmlText("a\xff"
                     "b"),
            "a\\xffb");
  EXPECT_EQ(HtmlText("line\nbreak"), "line\\nbreak");
  EXPECT_EQ(HtmlText("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays as it is
}

TEST(CheckHtmlTest, BarChartEscapesLabelsAndReferencesNothing) {
  const std::string svg =
      BarChartSvg({"<b>title</b>", {{"<script>", 3}, {"a&b", 1}}, ChartScale::kLinear, 0});
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("a&amp;b"), std::string::npos);
  EXPECT_NE(svg.find("aria-label=\"&lt;b&gt;title&lt;/b&gt;\""), std::string::npos);
  EXPECT_EQ(svg.find("http"), std::string::npos);
}

// On a log scale a class with a millionth of the pixels still gets a bar;
// on a linear one the longest bar is the full length.
TEST(CheckHtmlTest, LogScaleKeepsSmallClassesVisible) {
  auto widths = [](const std::string& svg) {
    std::vector<double> found;
    const std::regex width("<rect [^>]*width=\"([0-9.]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), width);
         it != std::sregex_iterator(); ++it)
      found.push_back(std::stod((*it)[1]));
    return found;
  };
  const auto log = widths(BarChartSvg({"t", {{"big", 1e6}, {"small", 1}}, ChartScale::kLog, 0}));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_GT(log[1], log[0] / 10);
  const auto linear =
      widths(BarChartSvg({"t", {{"big", 1e6}, {"small", 1}}, ChartScale::kLinear, 0}));
  ASSERT_EQ(linear.size(), 2u);
  EXPECT_LT(linear[1], 1.0);
  EXPECT_DOUBLE_EQ(linear[0], log[0]);
}

TEST(CheckHtmlTest, ScatterPlacesSizesOnOneScale) {
  const SizePoint points[] = {{100, 100, 5}, {200, 50, 1}};
  const std::string svg = SizeScatterSvg("sizes", points);
  // The largest side spans the plot (300 px from the margin of 50).
  EXPECT_NE(svg.find("cx=\"350.0\" cy=\"275.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("cx=\"200.0\" cy=\"200.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>200x50: 1 files</title>"), std::string::npos);
}

}  // namespace
}  // namespace segfeed::cli
