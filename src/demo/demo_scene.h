#pragma once

// The demo scene: a Carvana-like photo of a car on a studio floor and its
// mask, rendered from (seed, index) alone. `segfeed make-demo` writes these
// as files (demo/demo_dataset.h); the tests of every stage render them as
// realistic inputs. It needs only the counter-based RNG, so tests of a lower
// stage link the demo stage without its writers' dependencies or the
// command.

#include <cstdint>
#include <string>
#include <vector>

namespace segfeed::demo {

// Shape of a synthetic Carvana-like dataset (see `segfeed make-demo --help`).
enum class DemoMaskRows { kSequential, kInterlaced, kMixed };
// How multi-class label maps are stored: VOC's palette PNGs (index = class,
// VOC's colour map, 255 on a band around each object) or 8-bit grey PNGs
// whose value is the class id (Cityscapes' and ADE20K's label-id maps).
enum class DemoMaskFormat { kPalette, kGrey };
enum class DemoImageFormat { kJpeg, kPng };

struct DemoOptions {
  // Number of image/mask pairs.
  int count = 100;
  // Every byte of every file is a function of (seed, index, options).
  uint64_t seed = 0;
  // Pixels per image and mask; Carvana's photos are 1918x1280.
  int width = 1918;
  int height = 1280;
  // JPEG quality (1-100), always with 4:2:0 chroma subsampling like the
  // photos it imitates.
  int quality = 90;
  // Row order of the GIF masks: top to bottom (what Carvana's masks use),
  // interlaced (what Pillow and many tools write by default), or mixed
  // (every other mask interlaced).
  DemoMaskRows mask_rows = DemoMaskRows::kSequential;
  // 0: Carvana's binary masks (one car, GIF, 1 = car). 2 to 255: scenes of
  // several objects, each of a class in 1..classes-1 (0 is the background),
  // with their label maps as `<stem>_mask.png`.
  int classes = 0;
  // The form of those label maps (classes >= 2 only).
  DemoMaskFormat mask_format = DemoMaskFormat::kPalette;
  // The photos: JPEG (`<stem>.jpg`, at `quality`) or lossless RGB PNG
  // (`<stem>.png`).
  DemoImageFormat image_format = DemoImageFormat::kJpeg;
  // Worker threads writing the files, 0 = one per core. The files are the
  // same whatever it is, so it is no part of a dataset's identity.
  int threads = 0;
};

// The most classes a demo label map has: its ids are one byte, and 255 is
// the void band (kDemoIgnoreLabel).
inline constexpr int kDemoMaxClasses = 255;

// Throws ConfigError naming the field and the value when `options` cannot
// be rendered: classes other than 0 or 2 to kDemoMaxClasses ("classes must
// be 0 (binary masks) or in [2, 255] (got 1)"), a quality outside 1-100, a
// negative count or threads, a size below 1. The writers (WriteDemoDataset,
// WriteDemoLayout) check it first, so every front end gets the same words.
void ValidateDemoOptions(const DemoOptions& options);

// Palette label maps mark every pixel within this many pixels (square
// neighbourhood) of a pixel of another label as void, kDemoIgnoreLabel: a
// band centred on every outline, 4 px across a straight one and up to 6 px
// across a diagonal, like the ~5 px band of VOC's annotations.
inline constexpr int kDemoBoundaryRadiusPx = 2;
// The label of that band: VOC's, and segfeed's default ignore_index.
inline constexpr uint8_t kDemoIgnoreLabel = 255;

// One rendered sample: an RGB photo of a car on a studio floor and its mask
// (classes 0), or of several objects and their label map (classes >= 2).
struct DemoRaster {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;  // height x width x 3, row-major
  // height x width. classes 0: 1 = car, 0 = background. classes >= 2: the
  // class id of the nearest object (0 = background), and for palette maps
  // kDemoIgnoreLabel on the band around each object.
  std::vector<uint8_t> mask;
};

// Carvana-style file stem, "<8 hex digits of the car>_<view 01-16>"; unique
// within one dataset (16 views per car, car ids are a bijection of the index).
std::string DemoStem(uint64_t seed, int index);

// Renders sample `index` into `out`, reusing its buffers. Deterministic:
// uses only integer hashing and IEEE +, -, *, / and sqrt, so the pixels do
// not depend on the thread, the libm or the vector unit.
void RenderDemoSample(const DemoOptions& options, int index, DemoRaster* out);
// The same, with the texture scratch of the caller (one per thread when
// rendering many samples).
void RenderDemoSampleWith(const DemoOptions& options, int index, std::vector<float>* texture,
                          DemoRaster* out);

}  // namespace segfeed::demo
