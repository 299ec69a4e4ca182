#pragma once

// The public datasets whose layout `segfeed make-demo --dataset` imitates:
// the same folders, file names, split lists and label-map forms as the real
// download, filled with the demo's synthetic scenes, so a loader's presets
// for those datasets can be tested end to end without downloading them.

#include <cstdint>
#include <filesystem>
#include <functional>

#include "demo/demo_scene.h"
#include "result.h"

namespace segfeed::demo {

enum class DemoLayout {
  // train/<stem>.jpg and train_masks/<stem>_mask.gif (demo/demo_dataset.h).
  kCarvana,
  // PASCAL VOC 2012: JPEGImages/<id>.jpg, SegmentationClass/<id>.png
  // (palette PNGs, 21 classes, 255 on boundaries) and
  // ImageSets/Segmentation/{train,val,trainval}.txt; more photos than label
  // maps, as in the real set.
  kVoc,
  // Cityscapes: leftImg8bit/<split>/<city>/<key>_leftImg8bit.png and, beside
  // the same key under gtFine/, _gtFine_labelIds.png (Cityscapes label ids
  // 0..33), _gtFine_color.png, _gtFine_instanceIds.png (16-bit) and
  // _gtFine_polygons.json.
  kCityscapes,
  // ADE20K's scene-parsing release (ADEChallengeData2016):
  // images/{training,validation}/ADE_{train,val}_%08d.jpg and
  // annotations/.../*.png (grey, 0 = other, 1..150 the classes).
  kAde20k,
  // The layouts of demo/demo_more_layouts.h: CamVid in SegNet's form and
  // the original colour-coded one, COCO-Stuff 164k, Mapillary Vistas (v1.2
  // and v2.0 labels side by side, as the v2.0 release ships them), BDD100K
  // and LoveDA.
  kCamvid,
  kCamvid32,
  kCocoStuff,
  kMapillary,
  kBdd100k,
  kLoveda,
};

// A layout's name as `make-demo --dataset` takes it ("voc", "coco_stuff";
// mapillary_v2 is kMapillary too), the folders it writes and its file
// kinds, for the summary line.
struct DemoLayoutInfo {
  DemoLayout layout;
  const char* name;
  const char* folders;
  const char* image_kind;
  const char* mask_kind;
};
const DemoLayoutInfo& InfoOf(DemoLayout layout);

struct DemoLayoutSummary {
  int train_pairs = 0;
  int val_pairs = 0;
  // Photos without a label map, in no split list (VOC's JPEGImages holds
  // the detection photos too).
  int unannotated_photos = 0;
  uint64_t image_bytes = 0;  // the photos of the annotated pairs
  uint64_t mask_bytes = 0;   // their label maps (Cityscapes: the labelIds maps only)
};

// How many of `pairs` annotated pairs go to the validation split: a quarter,
// at least one, and at least one left for training when `pairs` >= 2.
int DemoValPairs(int pairs);

// The options the scenes of `layout` are rendered with: `options` with the
// layout's classes, label-map form and photo format (VOC: 21 classes,
// palette; Cityscapes: 8 scene classes, mapped to label ids when written,
// PNG photos; ADE20K: 151 classes, grey). kCarvana keeps `options` as given.
DemoOptions DemoLayoutSceneOptions(DemoLayout layout, const DemoOptions& options);

// Writes `options.count` annotated pairs (a DemoValPairs() share of them in
// the validation split) of `layout` under `out_dir`, with the size, seed,
// JPEG quality and threads of `options`; its classes, mask and image formats
// are the layout's own. kCarvana is WriteDemoDataset() exactly. Every file
// is written under a hidden temporary name and renamed when complete, and
// every byte depends only on (layout, options) less threads. `progress(done)`
// is called from worker threads after each photo with its label map, if
// any (may be empty).
Result<DemoLayoutSummary> WriteDemoLayout(const std::filesystem::path& out_dir, DemoLayout layout,
                                          const DemoOptions& options,
                                          const std::function<void(int)>& progress);

// WriteDemoLayout() with a "make-demo: done/total photos" progress line on
// stderr when stderr is a terminal.
Result<DemoLayoutSummary> WriteDemoLayoutWithProgress(const std::filesystem::path& out_dir,
                                                      DemoLayout layout,
                                                      const DemoOptions& options);

}  // namespace segfeed::demo
