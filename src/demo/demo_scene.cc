#include "demo/demo_scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "counter_rng.h"

namespace segfeed::demo {
namespace {

constexpr int kViewsPerCar = 16;
// Salts keep the streams of different purposes independent.
constexpr uint64_t kSceneSalt = 0x5CE7E;
constexpr uint64_t kTextureSalt = 0x7E27;
constexpr uint64_t kGrainSalt = 0x6A1;
constexpr uint64_t kCarSalt = 0xCA2;
constexpr uint64_t kObjectSalt = 0x0B1EC7;

// |cos| of the 16 turntable views, tabulated so no libm call shapes a pixel.
constexpr float kViewCos[kViewsPerCar] = {1.000f, 0.924f, 0.707f, 0.383f, 0.000f, 0.383f,
                                          0.707f, 0.924f, 1.000f, 0.924f, 0.707f, 0.383f,
                                          0.000f, 0.383f, 0.707f, 0.924f};

struct Rgb {
  float r, g, b;
};
constexpr Rgb kPaints[] = {{200, 30, 35},   {25, 60, 150},  {235, 235, 230}, {30, 30, 32},
                           {150, 155, 160}, {20, 100, 60},  {230, 170, 20},  {110, 20, 40},
                           {90, 120, 170},  {170, 120, 70}, {60, 65, 70},    {250, 250, 250}};

float Clamp01(float v) { return std::min(1.0f, std::max(0.0f, v)); }
float SmoothStep(float t) { return t * t * (3.0f - 2.0f * t); }

// Bijection of 32-bit integers keyed by the seed, so car ids never collide.
uint32_t CarId(uint64_t seed, uint32_t car) {
  uint32_t x = car ^ static_cast<uint32_t>(Mix64(seed));
  for (uint32_t round_key : {0x7FEB352Du, 0x846CA68Bu}) {
    x ^= x >> 16;
    x *= round_key;  // odd multipliers are invertible mod 2^32
  }
  return x ^ (x >> 16);
}

// Multi-octave value noise (fBm) in about [-1, 1]: a lattice of random values
// per octave, interpolated with smoothstep weights. Octaves from 256 px down
// to 4 px give the mix of soft shading and fine texture that photos have.
void RenderTexture(uint64_t seed, int index, int width, int height, std::vector<float>* field) {
  field->assign(static_cast<size_t>(width) * height, 0.0f);
  std::vector<int> x0(width);
  std::vector<float> wx(width);
  float amplitude = 0.5f;
  int octave = 0;
  for (int spacing = 256; spacing >= 4; spacing /= 2, amplitude *= 0.6f, ++octave) {
    const CounterRng rng(seed ^ kTextureSalt, static_cast<uint64_t>(index), octave);
    const int lattice_w = width / spacing + 2;
    const int lattice_h = height / spacing + 2;
    std::vector<float> lattice(static_cast<size_t>(lattice_w) * lattice_h);
    for (size_t i = 0; i < lattice.size(); ++i) {
      lattice[i] = static_cast<float>(rng.At(i) >> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
    const float inv = 1.0f / static_cast<float>(spacing);
    for (int x = 0; x < width; ++x) {
      x0[x] = x / spacing;
      wx[x] = SmoothStep(static_cast<float>(x % spacing) * inv);
    }
    for (int y = 0; y < height; ++y) {
      const float wy = SmoothStep(static_cast<float>(y % spacing) * inv);
      const float* row0 = &lattice[static_cast<size_t>(y / spacing) * lattice_w];
      const float* row1 = row0 + lattice_w;
      float* out = &(*field)[static_cast<size_t>(y) * width];
      for (int x = 0; x < width; ++x) {
        const int i = x0[x];
        const float top = row0[i] + (row0[i + 1] - row0[i]) * wx[x];
        const float bottom = row1[i] + (row1[i + 1] - row1[i]) * wx[x];
        out[x] += amplitude * (top + (bottom - top) * wy);
      }
    }
  }
}

// The car of one sample: a boxy body, a cabin with windows and two wheels,
// placed on the floor of a studio with some jitter per view.
struct CarShape {
  float cx, ground_y;          // centre line and where the tyres touch the floor
  float half_length;           // body half-length in pixels (shorter when seen head-on)
  float body_cy, body_half_h;  // body superellipse
  float cabin_cx, cabin_cy, cabin_half_w, cabin_half_h;
  float wheel_r, wheel_dx;  // wheel radius and offset of each wheel from cx
  float highlight_y;        // the bright reflection band along the body
  int facing;               // +1 front to the right, -1 to the left
  Rgb paint;

  bool InBody(float x, float y) const {
    const float u = (x - cx) / half_length;
    const float v = (y - body_cy) / body_half_h;
    return u * u * u * u + v * v * v * v <= 1.0f;
  }
  bool InCabin(float x, float y) const {
    if (y > body_cy) return false;
    const float u = (x - cabin_cx) / cabin_half_w;
    const float v = (y - cabin_cy) / cabin_half_h;
    return u * u * u * u + v * v <= 1.0f;
  }
  // Distance from the nearer wheel's hub in units of the wheel radius.
  float WheelDistance(float x, float y) const {
    const float dy = y - (ground_y - wheel_r);
    float best = 1e9f;
    for (float side : {-1.0f, 1.0f}) {
      const float dx = x - (cx + side * wheel_dx);
      best = std::min(best, (dx * dx + dy * dy) / (wheel_r * wheel_r));
    }
    return std::sqrt(best);
  }
};

CarShape PlaceCar(uint64_t seed, int index, int width, int height) {
  const int car = index / kViewsPerCar;
  const int view = index % kViewsPerCar;
  CounterRng car_rng(seed ^ kCarSalt, static_cast<uint64_t>(car));
  CounterRng view_rng(seed ^ kSceneSalt, static_cast<uint64_t>(index));
  const float w = static_cast<float>(width);
  const float h = static_cast<float>(height);
  CarShape s{};
  s.paint = kPaints[car_rng.Below(std::size(kPaints))];
  const float length_scale = static_cast<float>(car_rng.Uniform(0.9, 1.1));
  s.cx = w * (0.5f + static_cast<float>(view_rng.Uniform(-0.04, 0.04)));
  s.ground_y = h * (0.80f + static_cast<float>(view_rng.Uniform(-0.03, 0.03)));
  s.half_length = w * (0.17f + 0.19f * kViewCos[view]) * length_scale;
  s.wheel_r = 0.075f * h;
  s.body_half_h = 0.11f * h;
  s.body_cy = s.ground_y - s.wheel_r - 0.07f * h;
  s.facing = view < kViewsPerCar / 2 ? 1 : -1;
  s.cabin_half_w = 0.58f * s.half_length;
  s.cabin_half_h = 0.13f * h;
  s.cabin_cx = s.cx - s.facing * 0.12f * s.half_length * kViewCos[view];
  s.cabin_cy = s.body_cy - 0.08f * h;
  s.wheel_dx = s.half_length * (0.64f + 0.1f * (1.0f - kViewCos[view]));
  s.highlight_y = s.body_cy - 0.45f * s.body_half_h;
  return s;
}

// Tyre, with a metal rim and a dark hub inside; `wheel` is the distance
// from the hub in wheel radii.
Rgb WheelColour(float wheel, float tex) {
  Rgb c;
  if (wheel < 0.22f) {
    c = {60, 60, 64};
  } else if (wheel < 0.62f) {
    const float ring = wheel > 0.5f ? 0.75f : 1.0f;
    c = {175 * ring, 175 * ring, 180 * ring};
  } else {
    c = {28, 28, 30};
  }
  const float t = 1.0f + 0.10f * tex;
  return {c.r * t, c.g * t, c.b * t};
}

// Paint shaded top to bottom, a reflection band, door seams and a headlight
// at the front end.
Rgb BodyColour(const CarShape& car, float fx, float fy, float w, float tex) {
  const float v = (fy - (car.body_cy - car.body_half_h)) / (2.0f * car.body_half_h);
  float shade = 1.05f - 0.5f * v;
  const float band = 1.0f - std::abs(fy - car.highlight_y) / (0.18f * car.body_half_h);
  const float highlight = band > 0.0f ? 0.45f * band * band : 0.0f;
  const float seam = std::abs(std::abs(fx - car.cx) - 0.18f * car.half_length);
  if (seam < 1.5f * w / 1918.0f && v > 0.15f) shade *= 0.45f;
  shade *= 1.0f + 0.06f * tex;
  Rgb c = {car.paint.r * shade + 255 * highlight, car.paint.g * shade + 255 * highlight,
           car.paint.b * shade + 255 * highlight};
  const float lamp_x = car.cx + car.facing * 0.9f * car.half_length;
  const float lu = (fx - lamp_x) / (0.06f * car.half_length);
  const float lv = (fy - car.highlight_y - 0.3f * car.body_half_h) / (0.12f * car.body_half_h);
  if (lu * lu + lv * lv < 1.0f) c = {250, 245, 210};
  return c;
}

// Pillars around tinted glass that reflects the studio.
Rgb CabinColour(const CarShape& car, float fx, float fy, float tex) {
  const float u = std::abs(fx - car.cabin_cx) / car.cabin_half_w;
  const float v = (car.cabin_cy + car.cabin_half_h - fy) / (2.0f * car.cabin_half_h);
  const bool pillar =
      u > 0.86f || std::abs(fx - car.cabin_cx) < 0.03f * car.cabin_half_w || v < 0.08f;
  if (pillar) return {car.paint.r * 0.8f, car.paint.g * 0.8f, car.paint.b * 0.8f};
  const float glow = 40.0f + 70.0f * v + 25.0f * tex;
  return {glow * 0.8f, glow * 0.9f, glow};
}

// Studio: a bright backdrop above the horizon, a grey floor below with a
// soft shadow under the car.
Rgb StudioColour(const CarShape& car, float fx, float fy, float h, float horizon, float tex) {
  if (fy < horizon) {
    const float t = fy / horizon;
    const float base = 238.0f - 30.0f * t + 8.0f * tex;
    return {base, base, base + 4.0f};
  }
  const float t = (fy - horizon) / (h - horizon);
  float base = 165.0f - 55.0f * t + 22.0f * tex;
  const float su = (fx - car.cx) / (1.15f * car.half_length);
  const float sv = (fy - car.ground_y) / (0.06f * h);
  const float d = su * su + sv * sv;
  if (d < 1.0f) base *= 1.0f - 0.6f * (1.0f - d) * (1.0f - d);
  return {base, base, base * 1.02f};
}

// Lens vignetting, then sensor noise: triangular, about +-4.5 levels,
// independent per channel (from the 64 bits of `noise`).
void WritePixel(Rgb c, float vignette, uint64_t noise, uint8_t* rgb) {
  const float channels[3] = {c.r, c.g, c.b};
  for (int k = 0; k < 3; ++k) {
    const int a = static_cast<int>((noise >> (16 * k)) & 0xFF);
    const int b = static_cast<int>((noise >> (16 * k + 8)) & 0xFF);
    const float n = static_cast<float>(a + b - 255) * (4.5f / 255.0f);
    const float v = channels[k] * vignette + n;
    rgb[k] = static_cast<uint8_t>(Clamp01(v / 255.0f) * 255.0f + 0.5f);
  }
}

// The objects of a multi-class scene stand on the studio floor: a rounded
// block, a dome or a cone, the shape and paint following the class so that
// a class looks alike in every scene (a model can learn it), the size and
// place drawn per object.
enum class ObjectShape { kBlock, kDome, kCone };

struct SceneObject {
  uint8_t class_id;
  ObjectShape shape;
  float cx, cy;          // centre; the object stands on cy + half_h
  float half_w, half_h;  // half the bounding box
  Rgb paint;

  bool Contains(float x, float y) const {
    const float u = (x - cx) / half_w;
    const float v = (y - cy) / half_h;
    if (u < -1.0f || u > 1.0f || v < -1.0f || v > 1.0f) return false;
    switch (shape) {
      case ObjectShape::kBlock:
        return u * u * u * u + v * v * v * v <= 1.0f;
      case ObjectShape::kDome:
        return u * u + v * v <= 1.0f || v > 0.6f;
      case ObjectShape::kCone:
        return std::abs(u) <= 0.25f + 0.75f * 0.5f * (v + 1.0f);
    }
    return false;
  }
};

std::vector<SceneObject> PlaceObjects(const DemoOptions& options, int index) {
  CounterRng rng(options.seed ^ kObjectSalt, static_cast<uint64_t>(index));
  const float w = static_cast<float>(options.width);
  const float h = static_cast<float>(options.height);
  const int count = 2 + static_cast<int>(rng.Below(4));
  std::vector<SceneObject> objects;
  for (int i = 0; i < count; ++i) {
    SceneObject o{};
    const int klass = 1 + static_cast<int>(rng.Below(static_cast<uint64_t>(options.classes - 1)));
    o.class_id = static_cast<uint8_t>(klass);
    o.shape = static_cast<ObjectShape>((klass - 1) % 3);
    // Classes past the twelve paints repeat them, darker.
    const Rgb paint = kPaints[(klass - 1) % std::size(kPaints)];
    const float tone = (1.0f - 0.18f * static_cast<float>((klass - 1) / std::size(kPaints) % 4)) *
                       static_cast<float>(rng.Uniform(0.92, 1.08));
    o.paint = {paint.r * tone, paint.g * tone, paint.b * tone};
    // Farther objects (standing higher on the floor) are smaller.
    const float ground_y = h * static_cast<float>(rng.Uniform(0.68, 0.97));
    const float depth_scale = ground_y / h;
    o.half_w = w * static_cast<float>(rng.Uniform(0.05, 0.12)) * depth_scale;
    o.half_h = h * static_cast<float>(rng.Uniform(0.09, 0.20)) * depth_scale;
    o.cx = w * static_cast<float>(rng.Uniform(0.08, 0.92));
    o.cy = ground_y - o.half_h;
    objects.push_back(o);
  }
  // Nearest first: the first object that contains a pixel is the one seen.
  std::stable_sort(objects.begin(), objects.end(), [](const SceneObject& a, const SceneObject& b) {
    return a.cy + a.half_h > b.cy + b.half_h;
  });
  return objects;
}

// Lit from the upper left: shaded top to bottom and left to right, with a
// reflection band across the upper part.
Rgb ObjectColour(const SceneObject& o, float fx, float fy, float tex) {
  const float u = (fx - o.cx) / o.half_w;
  const float v = (fy - (o.cy - o.half_h)) / (2.0f * o.half_h);
  float shade = (1.05f - 0.45f * v) * (1.0f - 0.18f * u);
  shade *= 1.0f + 0.06f * tex;
  const float band = 1.0f - std::abs(v - 0.25f) / 0.08f;
  const float highlight = band > 0.0f ? 0.35f * band * band : 0.0f;
  return {o.paint.r * shade + 255 * highlight, o.paint.g * shade + 255 * highlight,
          o.paint.b * shade + 255 * highlight};
}

// The studio of the car scenes, with a soft shadow under every object.
Rgb ObjectStudioColour(const std::vector<SceneObject>& objects, float fx, float fy, float h,
                       float horizon, float tex) {
  if (fy < horizon) {
    const float t = fy / horizon;
    const float base = 238.0f - 30.0f * t + 8.0f * tex;
    return {base, base, base + 4.0f};
  }
  const float t = (fy - horizon) / (h - horizon);
  float base = 165.0f - 55.0f * t + 22.0f * tex;
  for (const SceneObject& o : objects) {
    const float su = (fx - o.cx) / (1.25f * o.half_w);
    const float sv = (fy - (o.cy + o.half_h)) / (0.3f * o.half_h);
    const float d = su * su + sv * sv;
    if (d < 1.0f) base *= 1.0f - 0.5f * (1.0f - d) * (1.0f - d);
  }
  return {base, base, base * 1.02f};
}

// Sets every pixel within `radius` px (a square neighbourhood) of a pixel of
// another label to kDemoIgnoreLabel: a band about 2 * radius px wide centred
// on every outline, between objects too. Separable: the smallest and largest
// label over each row window, then over each column of those.
void DrawBoundaryBand(int width, int height, int radius, std::vector<uint8_t>* labels) {
  std::vector<uint8_t> row_min(labels->size()), row_max(labels->size());
  for (int y = 0; y < height; ++y) {
    const uint8_t* in = &(*labels)[static_cast<size_t>(y) * width];
    for (int x = 0; x < width; ++x) {
      uint8_t lo = in[x], hi = in[x];
      for (int k = std::max(0, x - radius); k <= std::min(width - 1, x + radius); ++k) {
        lo = std::min(lo, in[k]);
        hi = std::max(hi, in[k]);
      }
      row_min[static_cast<size_t>(y) * width + x] = lo;
      row_max[static_cast<size_t>(y) * width + x] = hi;
    }
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t lo = 255, hi = 0;
      for (int k = std::max(0, y - radius); k <= std::min(height - 1, y + radius); ++k) {
        lo = std::min(lo, row_min[static_cast<size_t>(k) * width + x]);
        hi = std::max(hi, row_max[static_cast<size_t>(k) * width + x]);
      }
      if (lo != hi) (*labels)[static_cast<size_t>(y) * width + x] = kDemoIgnoreLabel;
    }
  }
}

// A multi-class scene: the objects of PlaceObjects() in the studio, with the
// car scene's texture, vignetting and sensor noise, and its label map.
void RenderObjectScene(const DemoOptions& options, int index, std::vector<float>* texture,
                       DemoRaster* out) {
  const int width = options.width;
  const int height = options.height;
  RenderTexture(options.seed, index, width, height, texture);
  const std::vector<SceneObject> objects = PlaceObjects(options, index);
  const CounterRng grain(options.seed ^ kGrainSalt, static_cast<uint64_t>(index));
  const float w = static_cast<float>(width);
  const float h = static_cast<float>(height);
  const float horizon = 0.60f * h;
  for (int y = 0; y < height; ++y) {
    const float fy = static_cast<float>(y) + 0.5f;
    uint8_t* rgb_row = &out->rgb[static_cast<size_t>(y) * width * 3];
    uint8_t* mask_row = &out->mask[static_cast<size_t>(y) * width];
    const float* tex_row = &(*texture)[static_cast<size_t>(y) * width];
    for (int x = 0; x < width; ++x) {
      const float fx = static_cast<float>(x) + 0.5f;
      const float tex = tex_row[x];
      const SceneObject* seen = nullptr;
      for (const SceneObject& o : objects) {
        if (o.Contains(fx, fy)) {
          seen = &o;
          break;
        }
      }
      const Rgb c = seen ? ObjectColour(*seen, fx, fy, tex)
                         : ObjectStudioColour(objects, fx, fy, h, horizon, tex);
      mask_row[x] = seen ? seen->class_id : 0;
      const float dx = (fx - 0.5f * w) / w;
      const float dy = (fy - 0.5f * h) / h;
      const float vignette = 1.0f - 0.35f * (dx * dx + dy * dy);
      WritePixel(c, vignette, grain.At(static_cast<uint64_t>(y) * width + x), &rgb_row[3 * x]);
    }
  }
  if (options.mask_format == DemoMaskFormat::kPalette) {
    DrawBoundaryBand(width, height, kDemoBoundaryRadiusPx, &out->mask);
  }
}

}  // namespace

void RenderDemoSampleWith(const DemoOptions& options, int index, std::vector<float>* texture,
                          DemoRaster* out) {
  const int width = options.width;
  const int height = options.height;
  out->width = width;
  out->height = height;
  out->rgb.resize(static_cast<size_t>(width) * height * 3);
  out->mask.resize(static_cast<size_t>(width) * height);
  if (options.classes >= 2) {
    RenderObjectScene(options, index, texture, out);
    return;
  }
  RenderTexture(options.seed, index, width, height, texture);
  const CarShape car = PlaceCar(options.seed, index, width, height);
  const CounterRng grain(options.seed ^ kGrainSalt, static_cast<uint64_t>(index));

  const float w = static_cast<float>(width);
  const float h = static_cast<float>(height);
  const float horizon = 0.60f * h;
  for (int y = 0; y < height; ++y) {
    const float fy = static_cast<float>(y) + 0.5f;
    uint8_t* rgb_row = &out->rgb[static_cast<size_t>(y) * width * 3];
    uint8_t* mask_row = &out->mask[static_cast<size_t>(y) * width];
    const float* tex_row = &(*texture)[static_cast<size_t>(y) * width];
    for (int x = 0; x < width; ++x) {
      const float fx = static_cast<float>(x) + 0.5f;
      const float tex = tex_row[x];
      const bool body = car.InBody(fx, fy);
      const bool cabin = !body && car.InCabin(fx, fy);
      const float wheel = car.WheelDistance(fx, fy);
      const bool is_wheel = wheel <= 1.0f;
      Rgb c;
      if (is_wheel && !cabin) {
        c = WheelColour(wheel, tex);
      } else if (body) {
        c = BodyColour(car, fx, fy, w, tex);
      } else if (cabin) {
        c = CabinColour(car, fx, fy, tex);
      } else {
        c = StudioColour(car, fx, fy, h, horizon, tex);
      }
      mask_row[x] = (body || cabin || is_wheel) ? 1 : 0;
      const float dx = (fx - 0.5f * w) / w;
      const float dy = (fy - 0.5f * h) / h;
      const float vignette = 1.0f - 0.35f * (dx * dx + dy * dy);
      WritePixel(c, vignette, grain.At(static_cast<uint64_t>(y) * width + x), &rgb_row[3 * x]);
    }
  }
}

std::string DemoStem(uint64_t seed, int index) {
  char stem[32];
  std::snprintf(stem, sizeof stem, "%08x_%02d",
                CarId(seed, static_cast<uint32_t>(index / kViewsPerCar)), index % kViewsPerCar + 1);
  return stem;
}

void RenderDemoSample(const DemoOptions& options, int index, DemoRaster* out) {
  std::vector<float> texture;
  RenderDemoSampleWith(options, index, &texture, out);
}

}  // namespace segfeed::demo
