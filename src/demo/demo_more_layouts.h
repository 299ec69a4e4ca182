#pragma once

// The demo layouts of CamVid (SegNet's form and the original colour-coded
// release), COCO-Stuff 164k, Mapillary Vistas, BDD100K and LoveDA: which
// files each writes and how a scene's classes become each dataset's own
// label values, so every preset meets its files as published. The scene's
// classes are a few of the dataset's, chosen to cross the places where a
// table could be off (COCO's unused ids, Mapillary's last label), and its
// boundary band is the dataset's unlabelled value.

#include <filesystem>
#include <span>

#include "demo/demo_layout_plan.h"
#include "demo/demo_layouts.h"
#include "demo/demo_scene.h"
#include "result.h"

namespace segfeed::demo {

// The file values the scene's classes 0, 1, ... are written as; the band
// (kDemoIgnoreLabel) is written as `band`. For kMapillary: the v1.2 labels.
struct DemoLabelValues {
  std::span<const int> classes;
  int band;
};
DemoLabelValues DemoLayoutLabelValues(DemoLayout layout);
// kMapillary's v2.0 labels of the same scenes.
DemoLabelValues DemoMapillaryV2LabelValues();

// DemoLayoutSceneOptions(), PlanLayout() and the mask writer for these
// layouts (kCamvid .. kLoveda).
DemoOptions MoreLayoutSceneOptions(DemoLayout layout, const DemoOptions& options);
LayoutPlan PlanMoreLayout(DemoLayout layout, const DemoOptions& options);
// kMapillary writes the v2.0 map beside `path`'s v1.2 one
// (<split>/v2.0/labels/<key>.png).
Status WriteMoreLayoutMask(DemoLayout layout, const std::filesystem::path& path,
                           const DemoRaster& raster);

}  // namespace segfeed::demo
