#pragma once

// Colours for class-id label maps: the palette make-demo writes into its
// palette PNGs, and the colours a preview paints classes with.

#include <array>
#include <cstdint>

namespace segfeed::output {

using LabelRgb = std::array<uint8_t, 3>;

// PASCAL VOC's colour map for the indices 0 to 255 (the bits of the index
// spread over the high bits of red, green and blue): 0 black (background),
// 1 (128, 0, 0), 2 (0, 128, 0), ..., and 255 (224, 224, 192), the colour of
// VOC's "void" boundary band. The palette of VOC's SegmentationClass PNGs.
const std::array<LabelRgb, 256>& VocColormap();

// What LabelColour() paints a pixel that is no class: VOC's void colour.
inline constexpr LabelRgb kIgnoreColour = {224, 224, 192};

// The colour to show class `class_id` of `num_classes` (class 0 being the
// background) with. Up to 21 classes, VOC's own colours, so VOC-style label
// maps look as their palettes show them. Beyond, black for class 0 and, for
// the others, hues a golden-ratio step apart (each class as far as possible
// from all before it) at three alternating brightness and saturation levels,
// so neighbouring ids stay distinguishable. A `class_id` outside
// [0, num_classes), such as an ignore index of 255, gets kIgnoreColour.
// Deterministic and thread-safe.
LabelRgb LabelColour(int class_id, int num_classes);

}  // namespace segfeed::output
