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

namespace segfeed::tools {

// Shape of a synthetic Carvana-like dataset (see `segfeed make-demo --help`).
enum class DemoMaskRows { kSequential, kInterlaced, kMixed };

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
};

// One rendered sample: an RGB photo of a car on a studio floor and its mask.
struct DemoRaster {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;   // height x width x 3, row-major
  std::vector<uint8_t> mask;  // height x width, 1 = car, 0 = background
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

}  // namespace segfeed::tools
