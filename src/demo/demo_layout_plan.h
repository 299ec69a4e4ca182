#pragma once

// What a demo layout writes, planned before any file is: each photo with
// its label map, and the text files (split lists, colour lists) after them.
// Shared by demo_layouts.cc and demo_more_layouts.cc.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace segfeed::demo {

// One photo to write and, unless it is a VOC photo without segmentation,
// its label map; both paths relative to OUT_DIR.
struct SampleFiles {
  int scene_index = 0;  // the RenderDemoSample() index
  std::filesystem::path image;
  std::filesystem::path mask;  // empty: no label map
};

// A text file written after the samples (a split list's "<id>\n" lines,
// CamVid's label_colors.txt).
struct ListFile {
  std::filesystem::path path;
  std::string text;
};

struct LayoutPlan {
  std::vector<SampleFiles> samples;
  std::vector<ListFile> lists;
  // Folders to create besides those of the samples and lists (where a mask
  // writer puts a second map, Mapillary's v2.0 labels).
  std::vector<std::filesystem::path> folders;
};

// True when annotated pair `pair` of `pairs` is in the validation split:
// DemoValPairs() of them, spread evenly (the last of every stretch), so both
// splits draw on the whole run of scenes.
bool IsValPair(int pair, int pairs);

}  // namespace segfeed::demo
