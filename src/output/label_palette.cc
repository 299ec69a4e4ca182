#include "output/label_palette.h"

namespace segfeed::output {
namespace {

constexpr int kVocClasses = 21;  // background and VOC's 20 object classes
// 1 / golden ratio: successive multiples, modulo 1, spread over the circle
// as evenly as any sequence can.
constexpr double kGoldenStep = 0.6180339887498949;

constexpr std::array<LabelRgb, 256> MakeVocColormap() {
  std::array<LabelRgb, 256> map{};
  for (int i = 0; i < 256; ++i) {
    int r = 0, g = 0, b = 0;
    for (int bit = 7, c = i; bit >= 0; --bit, c >>= 3) {
      r |= (c & 1) << bit;
      g |= ((c >> 1) & 1) << bit;
      b |= ((c >> 2) & 1) << bit;
    }
    map[i] = {static_cast<uint8_t>(r), static_cast<uint8_t>(g), static_cast<uint8_t>(b)};
  }
  return map;
}
// Computed by the compiler: no initialisation order or first-use race.
constexpr std::array<LabelRgb, 256> kVocColormap = MakeVocColormap();

// HSV to RGB with hue in [0, 1); only +, -, * and / so every machine agrees.
LabelRgb FromHsv(double hue, double saturation, double value) {
  const double h = hue * 6.0;
  const int sector = static_cast<int>(h) % 6;
  const double f = h - static_cast<int>(h);
  const double p = value * (1.0 - saturation);
  const double q = value * (1.0 - saturation * f);
  const double t = value * (1.0 - saturation * (1.0 - f));
  double r = value, g = t, b = p;
  switch (sector) {
    case 1:
      r = q, g = value, b = p;
      break;
    case 2:
      r = p, g = value, b = t;
      break;
    case 3:
      r = p, g = q, b = value;
      break;
    case 4:
      r = t, g = p, b = value;
      break;
    case 5:
      r = value, g = p, b = q;
      break;
    default:
      break;
  }
  auto level = [](double v) { return static_cast<uint8_t>(v * 255.0 + 0.5); };
  return {level(r), level(g), level(b)};
}

}  // namespace

const std::array<LabelRgb, 256>& VocColormap() { return kVocColormap; }

LabelRgb LabelColour(int class_id, int num_classes) {
  if (class_id < 0 || class_id >= num_classes) return kIgnoreColour;
  if (num_classes <= kVocClasses) return kVocColormap[class_id];
  if (class_id == 0) return {0, 0, 0};
  double hue = class_id * kGoldenStep;
  hue -= static_cast<int>(hue);
  constexpr double kValue[3] = {0.95, 0.75, 0.55};
  constexpr double kSaturation[3] = {0.85, 0.65, 0.95};
  const int level = class_id % 3;
  return FromHsv(hue, kSaturation[level], kValue[level]);
}

}  // namespace segfeed::output
