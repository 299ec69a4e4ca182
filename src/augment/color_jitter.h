#pragma once

#include "augment/output_conversion.h"
#include "augment/raster_view.h"
#include "segfeed/augment.h"

namespace segfeed::augment {

// Colour jitter of an RGB image in place, on the [0, 1] scale, in this order
// (each step clamps to [0, 1]):
//   contrast    c = (c - mean_c) * contrast_factor + mean_c, mean_c over the
//               whole image as it is before this step;
//   brightness  c = c + brightness_delta;
//   saturation  HSV saturation s = min(1, s * saturation_factor);
//   hue         HSV hue h = (h + hue_delta) mod 1 (hue as a fraction of a turn);
// then rounds to the nearest uint8 level. Identity parameters leave the image
// untouched. The work per pixel does not depend on other pixels except
// through the channel means, so the result is the same on any thread.

// Each channel's sum of levels over an RGB raster (exact, in any order).
ChannelSums RgbChannelSums(const RasterView& rgb);

// Fast path: one counting pass for the means, then one pass that does
// contrast and brightness per channel and saturation and hue together (they
// commute: saturation keeps hue and value, hue keeps saturation and value).
// Factors up to 1 (the default ranges) take 16-bit fixed point, 16 pixels a
// step (jitter_fixed_point.h, within 1 level of the reference); larger
// factors take float32, 8 pixels a step (within 2 levels). Where AVX2 or
// AVX-512 is available it gives the same bits as the one-pixel code.
void ApplyColorJitter(const AugmentParams& params, const MutableRasterView& rgb);

// The same jitter, written through `converter` into `dst` (see
// OutputConverter::ConvertPlanarSpan) instead of back into `rgb`: the levels
// never return to memory as uint8 pixels. Byte-for-byte what ApplyColorJitter
// followed by converter.ConvertImage(rgb, dst) gives. Returns false and
// writes nothing for identity parameters: then the caller converts. `dst` may
// be `rgb`'s own memory when the output is uint8 NHWC. `channel_sums`, when
// given, must be the exact per-channel sums of `rgb`'s levels (the warp
// gathers them as it writes); the contrast means then need no pass of their
// own, with the same result.
bool ApplyColorJitterAndConvert(const AugmentParams& params, const RasterView& rgb,
                                const OutputConverter& converter, const StridedImage& dst,
                                const ChannelSums* channel_sums = nullptr);

// Straightforward double-precision implementation of the formulas above, one
// step at a time through textbook RGB<->HSV conversions. Slow; for tests.
void ApplyColorJitterReference(const AugmentParams& params, const MutableRasterView& rgb);

}  // namespace segfeed::augment
