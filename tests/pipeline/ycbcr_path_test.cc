// decode_colour = ycbcr and colour_model = linear: the planes each chroma
// subsampling decodes to, the colours they warp to, the stream's bytes over
// threads and kernels, and how far each path lies from the reference path.

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "augment/sample_augmenter.h"
#include "decode/jpeg_decoder.h"
#include "fixtures/fixtures.h"
#include "fnv1a_digest.h"
#include "segfeed/loader.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

#include "../augment/kernel_scopes.h"

namespace segfeed {
namespace {

using decode::DctScale;
using decode::DecodedImage;
using decode::JpegDecoder;

using Rgb = std::array<int, 3>;
constexpr int kWidth = 128;
constexpr int kHeight = 96;
// Quadrants, left to right and top to bottom: saturated colours, whose
// chroma is far from 128, so that a plane read at the wrong place or scale
// shows.
constexpr std::array<Rgb, 4> kQuadrants = {Rgb{220, 30, 40}, Rgb{40, 200, 60}, Rgb{30, 50, 210},
                                           Rgb{230, 200, 40}};

std::vector<uint8_t> QuadrantPicture() {
  std::vector<uint8_t> rgb(size_t{kWidth} * kHeight * 3);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const Rgb& colour = kQuadrants[(y >= kHeight / 2) * 2 + (x >= kWidth / 2)];
      for (int c = 0; c < 3; ++c)
        rgb[(static_cast<size_t>(y) * kWidth + x) * 3 + c] = uint8_t(colour[c]);
    }
  return rgb;
}

// `rgb` (width x height) as TurboJPEG writes it with `subsampling`.
std::vector<uint8_t> EncodeWithTurbo(const std::vector<uint8_t>& rgb, int width, int height,
                                     int subsampling) {
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int status =
      tjCompress2(handle, rgb.data(), width, 0, height, TJPF_RGB, &jpeg, &size, subsampling, 95, 0);
  EXPECT_EQ(status, 0) << tjGetErrorStr2(handle);
  std::vector<uint8_t> bytes(jpeg, jpeg + size);
  tjFree(jpeg);
  tjDestroy(handle);
  return bytes;
}

std::vector<uint8_t> EncodeQuadrants(int subsampling) {
  return EncodeWithTurbo(QuadrantPicture(), kWidth, kHeight, subsampling);
}

struct Subsampling {
  const char* name;
  int turbo;
  int step_x, step_y;
};
constexpr Subsampling kSubsamplings[] = {{"4:4:4", TJSAMP_444, 1, 1}, {"4:2:2", TJSAMP_422, 2, 1},
                                         {"4:2:0", TJSAMP_420, 2, 2}, {"4:4:0", TJSAMP_440, 1, 2},
                                         {"4:1:1", TJSAMP_411, 4, 1}, {"grey", TJSAMP_GRAY, 1, 1}};

// The most a row of a smooth picture may lie from libjpeg's RGB through
// the YCbCr path: 10 levels measured (4:1:1 at 1/8, where a chroma sample
// spans 4 output pixels), where a misplaced chroma row or a fill blended
// into the chroma inside the photo was 17 to over 100.
constexpr int kSmoothRowBound = 16;

AugmentOptions NoAugmentation(int width, int height) {
  AugmentOptions options;
  options.output_width = width;
  options.output_height = height;
  options.flip_lr_probability = options.flip_ud_probability = 0;
  options.rotation_fraction = 0;
  options.contrast_enabled = options.brightness_enabled = false;
  options.saturation_enabled = options.hue_enabled = false;
  return options;
}

// The photo (width x height) decoded with `colour` at `scale` and warped,
// unaugmented, to width/2 x height/2 uint8 RGB.
std::vector<uint8_t> DecodeAndWarp(const std::vector<uint8_t>& jpeg, DecodeColour colour,
                                   DctScale scale, DecodedImage* decoded, int photo_width = kWidth,
                                   int photo_height = kHeight) {
  DecodeOptions decode;
  decode.decode_colour = colour;
  JpegDecoder decoder(decode);
  auto header = decoder.ReadHeader(jpeg, "quadrants.jpg");
  EXPECT_TRUE(header.ok());
  EXPECT_TRUE(decoder.Decode(jpeg, header.value(), scale, "quadrants.jpg", decoded).ok());
  const std::vector<uint8_t> mask(size_t(photo_width) * photo_height, 0);
  augment::WarpSource source;
  if (decoded->layout == DecodedImage::Layout::kYCbCrPlanes) {
    source.image = {decoded->pixels.data(), decoded->width, decoded->height, 1,
                    decoded->luma_stride};
    if (decoded->chroma_width > 0)
      for (int plane = 0; plane < 2; ++plane)
        source.chroma[plane] = {decoded->ChromaPlane(plane), decoded->chroma_width,
                                decoded->chroma_height, 1, decoded->chroma_width};
    source.chroma_step_x = decoded->chroma_step_x;
    source.chroma_step_y = decoded->chroma_step_y;
  } else {
    source.image = {decoded->pixels.data(), decoded->width, decoded->height, 3,
                    ptrdiff_t{decoded->width} * 3};
  }
  source.mask = {mask.data(), photo_width, photo_height, 1, photo_width};
  source.image_scale = static_cast<double>(scale.num) / scale.denom;
  const int width = photo_width / 2, height = photo_height / 2;
  OutputOptions output;
  output.image_dtype = ElementType::kUint8;
  output.mask_dtype = ElementType::kUint8;
  augment::SampleAugmenter augmenter(NoAugmentation(width, height), output, {}, colour);
  std::vector<uint8_t> image(size_t(width) * height * 3), out_mask(size_t(width) * height);
  const augment::OutputConverter& converter = augmenter.converter();
  augmenter.Run({}, source, converter.DenseImage(image.data(), width, height),
                converter.DenseMask(out_mask.data(), width));
  return image;
}

Rgb At(const std::vector<uint8_t>& image, int x, int y) {
  const size_t at = (static_cast<size_t>(y) * (kWidth / 2) + x) * 3;
  return {image[at], image[at + 1], image[at + 2]};
}

int Luma(const Rgb& rgb) {
  return static_cast<int>(std::lround(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]));
}

// Each quadrant's centre of a warped quadrant picture is its colour (a grey
// JPEG's: its luma), and close to the RGB path's `reference`.
void ExpectQuadrantColours(const std::vector<uint8_t>& warped,
                           const std::vector<uint8_t>& reference, bool grey) {
  for (int quadrant = 0; quadrant < 4; ++quadrant) {
    const int x = (quadrant % 2) * kWidth / 4 + kWidth / 8;
    const int y = (quadrant / 2) * kHeight / 4 + kHeight / 8;
    const Rgb ours = At(warped, x, y), theirs = At(reference, x, y);
    const Rgb& truth = kQuadrants[quadrant];
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(ours[c], grey ? Luma(truth) : truth[c], 6) << "quadrant " << quadrant;
      EXPECT_NEAR(ours[c], theirs[c], 3) << "quadrant " << quadrant << " channel " << c;
    }
  }
}

// Every subsampling decodes to its planes at the scale and sizes
// TurboJPEG's, and each quadrant's centre warps back to its colour (grey
// JPEGs: to its luma), at 1/1 and at 1/2.
TEST(YCbCrPathTest, EverySubsamplingDecodesAndWarpsToItsColours) {
  for (const Subsampling& kind : kSubsamplings) {
    const std::vector<uint8_t> jpeg = EncodeQuadrants(kind.turbo);
    for (const DctScale scale : {DctScale{1, 1}, DctScale{1, 2}}) {
      SCOPED_TRACE(std::string(kind.name) + " at 1/" + std::to_string(scale.denom));
      DecodedImage planes, rgb;
      const std::vector<uint8_t> warped = DecodeAndWarp(jpeg, DecodeColour::kYCbCr, scale, &planes);
      const std::vector<uint8_t> reference = DecodeAndWarp(jpeg, DecodeColour::kRgb, scale, &rgb);
      ASSERT_EQ(planes.layout, DecodedImage::Layout::kYCbCrPlanes);
      ASSERT_EQ(rgb.layout, DecodedImage::Layout::kRgb);
      EXPECT_EQ(planes.width, kWidth / scale.denom);
      EXPECT_EQ(planes.height, kHeight / scale.denom);
      const bool grey = kind.turbo == TJSAMP_GRAY;
      EXPECT_EQ(planes.chroma_width, grey ? 0 : planes.width / kind.step_x);
      EXPECT_EQ(planes.chroma_height, grey ? 0 : planes.height / kind.step_y);
      EXPECT_EQ(planes.chroma_step_x, kind.step_x);
      EXPECT_EQ(planes.chroma_step_y, kind.step_y);
      EXPECT_EQ(planes.pixels.size(), size_t(planes.width) * planes.height +
                                          2 * size_t(planes.chroma_width) * planes.chroma_height);
      ExpectQuadrantColours(warped, reference, grey);
    }
  }
}

// Files as other encoders write them (OpenCV's baseline, progressive and
// grey JPEGs, libjpeg's arithmetic coding) decode to planes and warp back
// to their colours, at 1/1 and at 1/2.
TEST(YCbCrPathTest, OtherWritersFilesWarpToTheirColours) {
  const std::vector<uint8_t> picture = QuadrantPicture();
  struct Writer {
    const char* name;
    std::vector<uint8_t> jpeg;
    bool grey;
  };
  const Writer writers[] = {
      {"OpenCV baseline",
       testing::EncodeJpegWithOpenCv(picture, kWidth, kHeight, testing::JpegVariant::kBaseline),
       false},
      {"OpenCV progressive",
       testing::EncodeJpegWithOpenCv(picture, kWidth, kHeight, testing::JpegVariant::kProgressive),
       false},
      {"OpenCV grey",
       testing::EncodeJpegWithOpenCv(picture, kWidth, kHeight, testing::JpegVariant::kGrayscale),
       true},
      {"libjpeg arithmetic",
       testing::EncodeJpegWithLibjpeg(picture, kWidth, kHeight,
                                      testing::LibjpegVariant::kArithmetic),
       false}};
  for (const Writer& writer : writers) {
    for (const DctScale scale : {DctScale{1, 1}, DctScale{1, 2}}) {
      SCOPED_TRACE(std::string(writer.name) + " at 1/" + std::to_string(scale.denom));
      DecodedImage planes, rgb;
      const std::vector<uint8_t> warped =
          DecodeAndWarp(writer.jpeg, DecodeColour::kYCbCr, scale, &planes);
      const std::vector<uint8_t> reference =
          DecodeAndWarp(writer.jpeg, DecodeColour::kRgb, scale, &rgb);
      ASSERT_EQ(planes.layout, DecodedImage::Layout::kYCbCrPlanes);
      EXPECT_EQ(planes.chroma_width == 0, writer.grey);
      ExpectQuadrantColours(warped, reference, writer.grey);
    }
  }
}

// An RGB-coded JPEG has no YCbCr planes: it decodes to RGB in either mode,
// the same bytes.
TEST(YCbCrPathTest, RgbCodedJpegDecodesToRgb) {
  const std::vector<uint8_t> jpeg = testing::EncodeJpegWithLibjpeg(
      QuadrantPicture(), kWidth, kHeight, testing::LibjpegVariant::kRgbCoded);
  DecodedImage planes_mode, rgb_mode;
  const std::vector<uint8_t> warped =
      DecodeAndWarp(jpeg, DecodeColour::kYCbCr, DctScale{1, 2}, &planes_mode);
  const std::vector<uint8_t> reference =
      DecodeAndWarp(jpeg, DecodeColour::kRgb, DctScale{1, 2}, &rgb_mode);
  EXPECT_EQ(planes_mode.layout, DecodedImage::Layout::kRgb);
  EXPECT_TRUE(warped == reference);
}

// A smooth, saturated picture: every colour changes by at most a few levels
// from one pixel to the next, so the two upsamplings of its chroma
// (libjpeg's triangle filter, the plane warp's bilinear taps) agree to a
// few levels everywhere, and a chroma sample read from the wrong place
// shows as tens of levels.
std::vector<uint8_t> SmoothPicture(int width, int height) {
  std::vector<uint8_t> rgb(size_t(width) * height * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double u = double(x) / width, v = double(y) / height;
      const double levels[3] = {128 + 100 * std::sin(3.1 * u + 0.3) * std::cos(2.0 * v),
                                128 + 90 * std::cos(2.3 * u - 1.7 * v),
                                128 + 100 * std::sin(2.9 * v + 0.5 * u)};
      for (int c = 0; c < 3; ++c)
        rgb[(size_t(y) * width + x) * 3 + c] = uint8_t(std::lround(levels[c]));
    }
  return rgb;
}

// How the window meets the photo's edge: mirrored, or a constant fill at
// the edge, around a letterbox or in the corners a turn brings in. The fill
// is coloured, so that a fill whose chroma goes astray (a grey photo's)
// shows.
struct Framing {
  const char* name;
  FillMode fill_mode;
  ResizeMode resize;
  double angle_deg;  // the Loader: rotation_fraction = angle_deg / 360
};
constexpr Framing kFramings[] = {{"mirrored edge", FillMode::kReflect, ResizeMode::kStretch, 0},
                                 {"constant fill", FillMode::kConstant, ResizeMode::kStretch, 0},
                                 {"letterbox", FillMode::kConstant, ResizeMode::kKeepRatio, 0},
                                 {"turned", FillMode::kConstant, ResizeMode::kStretch, 17}};
constexpr FillColor kColouredFill{30, 160, 220};

// A photo of photo_width x photo_height pixels, decoded (`decoded`, by
// `colour`'s path) at `scale`, warped unaugmented to output_width x
// output_height as `framing` says, as uint8 RGB.
std::vector<uint8_t> WarpDecoded(const DecodedImage& decoded, DecodeColour colour, DctScale scale,
                                 int photo_width, int photo_height, int output_width,
                                 int output_height, const Framing& framing) {
  const std::vector<uint8_t> mask(size_t(photo_width) * photo_height, 0);
  augment::WarpSource source;
  if (decoded.layout == DecodedImage::Layout::kYCbCrPlanes) {
    source.image = {decoded.pixels.data(), decoded.width, decoded.height, 1, decoded.luma_stride};
    for (int plane = 0; plane < 2 && decoded.chroma_width > 0; ++plane)
      source.chroma[plane] = {decoded.ChromaPlane(plane), decoded.chroma_width,
                              decoded.chroma_height, 1, decoded.chroma_width};
    source.chroma_step_x = decoded.chroma_step_x;
    source.chroma_step_y = decoded.chroma_step_y;
  } else {
    source.image = {decoded.pixels.data(), decoded.width, decoded.height, 3,
                    ptrdiff_t{decoded.width} * 3};
  }
  source.mask = {mask.data(), photo_width, photo_height, 1, photo_width};
  source.image_scale = static_cast<double>(scale.num) / scale.denom;
  AugmentOptions options = NoAugmentation(output_width, output_height);
  options.fill_mode = framing.fill_mode;
  options.resize = framing.resize;
  options.fill_value = kColouredFill;
  OutputOptions output;
  output.image_dtype = ElementType::kUint8;
  output.mask_dtype = ElementType::kUint8;
  augment::SampleAugmenter augmenter(options, output, {}, colour);
  std::vector<uint8_t> image(size_t(output_width) * output_height * 3);
  std::vector<uint8_t> out_mask(size_t(output_width) * output_height);
  const augment::OutputConverter& converter = augmenter.converter();
  AugmentParams params;
  params.angle_deg = framing.angle_deg;
  augmenter.Run(params, source, converter.DenseImage(image.data(), output_width, output_height),
                converter.DenseMask(out_mask.data(), output_width));
  return image;
}

// libjpeg's own RGB decode of `jpeg` at `scale`, straight from TurboJPEG.
DecodedImage LibjpegRgb(const std::vector<uint8_t>& jpeg, DctScale scale, int photo_width,
                        int photo_height) {
  DecodedImage rgb;
  rgb.width = scale.Apply(photo_width);
  rgb.height = scale.Apply(photo_height);
  rgb.pixels.resize(size_t(rgb.width) * rgb.height * 3);
  tjhandle handle = tjInitDecompress();
  EXPECT_EQ(tjDecompress2(handle, jpeg.data(), static_cast<unsigned long>(jpeg.size()),
                          rgb.pixels.data(), rgb.width, 0, rgb.height, TJPF_RGB, 0),
            0)
      << tjGetErrorStr2(handle);
  tjDestroy(handle);
  return rgb;
}

// decode_colour = ycbcr against libjpeg's RGB decode of the same file,
// warped by the same matrix, row by row: every subsampling (TurboJPEG's
// encoder for each, OpenCV's 4:2:0 baseline, progressive and grey files),
// odd and even widths (each remainder of 4, for 4:1:1) and heights, every
// DCT scale libjpeg-turbo decodes at, output sizes at, below and above the
// decoded size, and each way of meeting the photo's edge (kFramings). It
// holds two defects of issue 43: the Y plane TurboJPEG pads to whole chroma
// samples was decoded into a buffer of the photo's size, so at an odd
// height its padding row overwrote the first rows of Cb (the top rows over
// 100 levels off; the issue saw 225 at VOC's 500x375); and a constant fill
// blended into the chroma a sample before the photo's edge, where libjpeg
// repeats the edge sample (up to 159 levels off at a grey photo's letterbox).
TEST(YCbCrPathTest, EveryRowMatchesLibjpegsRgbAtEverySizeScaleAndSubsampling) {
  struct Size {
    int width, height;
  };
  // Each remainder of 4 in width, odd and even heights, and sides of 1 to
  // 3 pixels, where the padding is most of the Y plane (one flat colour:
  // a few pixels of the smooth picture are not smooth).
  constexpr Size kPhotos[] = {{320, 240}, {321, 243}, {318, 235}, {319, 238}, {1, 1},
                              {1, 75},    {97, 1},    {2, 3},     {3, 2}};
  std::vector<DctScale> scales;
  for (int num = 1; num <= 8; ++num) scales.push_back(DctScale{num, 8});
  int worst_row = 0;
  for (const Size& photo : kPhotos) {
    const bool tiny = std::min(photo.width, photo.height) < 8;
    std::vector<uint8_t> picture = SmoothPicture(photo.width, photo.height);
    for (size_t i = 0; tiny && i < picture.size(); ++i) picture[i] = kQuadrants[0][i % 3];
    struct Writer {
      std::string name;
      std::vector<uint8_t> jpeg;
    };
    std::vector<Writer> writers;
    for (const Subsampling& kind : kSubsamplings) {
      if (kind.turbo == TJSAMP_GRAY) continue;
      writers.push_back({std::string("TurboJPEG ") + kind.name,
                         EncodeWithTurbo(picture, photo.width, photo.height, kind.turbo)});
    }
    writers.push_back({"OpenCV baseline 4:2:0",
                       testing::EncodeJpegWithOpenCv(picture, photo.width, photo.height,
                                                     testing::JpegVariant::kBaseline, 95)});
    writers.push_back({"OpenCV progressive 4:2:0",
                       testing::EncodeJpegWithOpenCv(picture, photo.width, photo.height,
                                                     testing::JpegVariant::kProgressive, 95)});
    writers.push_back(
        {"OpenCV grey", testing::EncodeJpegWithOpenCv(picture, photo.width, photo.height,
                                                      testing::JpegVariant::kGrayscale, 95)});
    for (const Writer& writer : writers) {
      for (const DctScale scale : scales) {
        DecodeOptions decode;
        decode.decode_colour = DecodeColour::kYCbCr;
        JpegDecoder decoder(decode);
        auto header = decoder.ReadHeader(writer.jpeg, "smooth.jpg");
        ASSERT_TRUE(header.ok());
        DecodedImage planes;
        ASSERT_TRUE(decoder.Decode(writer.jpeg, header.value(), scale, "smooth.jpg", &planes).ok());
        ASSERT_EQ(planes.layout, DecodedImage::Layout::kYCbCrPlanes);
        EXPECT_EQ(int64_t(planes.pixels.size()), decoder.DecodedBytes(header.value(), scale));
        const DecodedImage rgb = LibjpegRgb(writer.jpeg, scale, photo.width, photo.height);
        ASSERT_EQ(planes.width, rgb.width);
        ASSERT_EQ(planes.height, rgb.height);
        // The decoded size, below it, below half of it (the warp area-reduces
        // first), and above it.
        const Size outputs[] = {{rgb.width, rgb.height},
                                {std::max(1, rgb.width * 2 / 3), std::max(1, rgb.height * 3 / 5)},
                                {std::max(1, rgb.width * 2 / 7), std::max(1, rgb.height / 3)},
                                {rgb.width * 3 / 2 + 1, rgb.height * 4 / 3 + 1}};
        for (const Size& output : outputs)
          for (const Framing& framing : kFramings) {
            SCOPED_TRACE(writer.name + ", " + std::to_string(photo.width) + "x" +
                         std::to_string(photo.height) + " at " + std::to_string(scale.num) +
                         "/8 to " + std::to_string(output.width) + "x" +
                         std::to_string(output.height) + ", " + framing.name);
            const std::vector<uint8_t> ours =
                WarpDecoded(planes, DecodeColour::kYCbCr, scale, photo.width, photo.height,
                            output.width, output.height, framing);
            const std::vector<uint8_t> theirs =
                WarpDecoded(rgb, DecodeColour::kRgb, scale, photo.width, photo.height, output.width,
                            output.height, framing);
            for (int y = 0; y < output.height; ++y) {
              int row_max = 0;
              for (size_t i = size_t(y) * output.width * 3; i < size_t(y + 1) * output.width * 3;
                   ++i)
                row_max = std::max(row_max, std::abs(int(ours[i]) - int(theirs[i])));
              worst_row = std::max(worst_row, row_max);
              EXPECT_LE(row_max, kSmoothRowBound) << "row " << y;
            }
          }
      }
    }
  }
  std::printf("largest deviation in a row: %d levels\n", worst_row);
}

// The Loader's ycbcr stream against its rgb stream, row by row, over
// photos of odd sizes (every remainder of 4 in width, odd and even
// heights) and each subsampling, framed each way (kFramings) at one output
// size, so the DCT scale differs from photo to photo: the planes the Loader
// hands to the warp are the ones the decoder wrote, each at its own row
// length.
TEST(YCbCrPathTest, LoaderStreamsOddSizedPhotosRowByRowAsRgbDoes) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "train");
  std::filesystem::create_directories(dir.path() / "train_masks");
  constexpr int kOpenCv = -1, kOpenCvGrey = -2;
  struct Photo {
    int width, height, subsampling;  // TurboJPEG's, or OpenCV's 4:2:0 or grey
  };
  constexpr Photo kPhotos[] = {{501, 375, kOpenCv},    {500, 375, TJSAMP_420},
                               {319, 427, TJSAMP_411}, {318, 241, TJSAMP_422},
                               {257, 163, TJSAMP_440}, {130, 99, TJSAMP_420},
                               {199, 151, kOpenCvGrey}};
  int key = 0;
  for (const Photo& photo : kPhotos) {
    const std::vector<uint8_t> picture = SmoothPicture(photo.width, photo.height);
    const std::string stem = "photo" + std::to_string(key++);
    testing::WriteFile(
        dir.path() / "train" / (stem + ".jpg"),
        photo.subsampling < 0
            ? testing::EncodeJpegWithOpenCv(picture, photo.width, photo.height,
                                            photo.subsampling == kOpenCv
                                                ? testing::JpegVariant::kBaseline
                                                : testing::JpegVariant::kGrayscale,
                                            95)
            : EncodeWithTurbo(picture, photo.width, photo.height, photo.subsampling));
    testing::WriteFile(dir.path() / "train_masks" / (stem + "_mask.gif"),
                       testing::EncodeMaskGif(testing::TestMask(photo.width, photo.height),
                                              photo.width, photo.height));
  }
  constexpr int kOutputWidth = 125, kOutputHeight = 93;
  auto read = [&](DecodeColour colour, const Framing& framing) {
    LoaderOptions options;
    options.batch_size = 1;
    options.threads = 1;
    options.shuffle = Shuffle::kNone;
    options.augment = NoAugmentation(kOutputWidth, kOutputHeight);
    options.augment.fill_mode = framing.fill_mode;
    options.augment.resize = framing.resize;
    options.augment.rotation_fraction = framing.angle_deg / 360;
    options.augment.fill_value = kColouredFill;
    options.output.image_dtype = ElementType::kUint8;
    options.output.mask_dtype = ElementType::kUint8;
    options.pinned = PinnedMode::kOff;
    options.decode.decode_colour = colour;
    Loader loader(DatasetSpec::Carvana(dir.path()), options);
    loader.StartEpoch(0);
    std::vector<uint8_t> images;
    while (auto lease = loader.Next()) {
      const auto* data = static_cast<const uint8_t*>(lease->images().data);
      images.insert(images.end(), data, data + lease->images().bytes());
    }
    return images;
  };
  for (const Framing& framing : kFramings) {
    SCOPED_TRACE(framing.name);
    const std::vector<uint8_t> ycbcr = read(DecodeColour::kYCbCr, framing);
    const std::vector<uint8_t> rgb = read(DecodeColour::kRgb, framing);
    ASSERT_EQ(ycbcr.size(), std::size(kPhotos) * kOutputWidth * kOutputHeight * 3);
    ASSERT_EQ(rgb.size(), ycbcr.size());
    const size_t row_bytes = size_t{kOutputWidth} * 3;
    for (size_t row = 0; row < ycbcr.size() / row_bytes; ++row) {
      int row_max = 0;
      for (size_t i = row * row_bytes; i < (row + 1) * row_bytes; ++i)
        row_max = std::max(row_max, std::abs(int(ycbcr[i]) - int(rgb[i])));
      EXPECT_LE(row_max, kSmoothRowBound)
          << "sample " << row / kOutputHeight << " row " << row % kOutputHeight;
    }
  }
}

// Demo pairs, as make-demo writes them (4:2:0 photos), written once.
class YCbCrLoaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    demo::DemoOptions demo;
    demo.count = 12;
    demo.width = 240;
    demo.height = 160;
    ASSERT_NO_FATAL_FAILURE(testing::WriteDemoPairs(dir_->path(), demo));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static LoaderOptions Options(DecodeColour colour, ColourModel model, int threads = 2) {
    LoaderOptions options;
    options.batch_size = 4;
    options.threads = threads;
    options.seed = 5;
    options.augment.output_width = 72;
    options.augment.output_height = 56;
    options.output.image_dtype = ElementType::kUint8;
    options.output.mask_dtype = ElementType::kUint8;
    options.pinned = PinnedMode::kOff;
    options.decode.decode_colour = colour;
    options.augment.colour_model = model;
    return options;
  }

  struct Stream {
    std::vector<uint8_t> images;
    std::vector<uint8_t> masks;
  };
  // Two epochs' images and masks, in order.
  static Stream Read(const LoaderOptions& options) {
    Loader loader(DatasetSpec::Carvana(dir_->path()), options);
    Stream stream;
    for (int64_t epoch = 0; epoch < 2; ++epoch) {
      loader.StartEpoch(epoch);
      while (auto lease = loader.Next()) {
        const auto* images = static_cast<const uint8_t*>(lease->images().data);
        const auto* masks = static_cast<const uint8_t*>(lease->masks().data);
        stream.images.insert(stream.images.end(), images, images + lease->images().bytes());
        stream.masks.insert(stream.masks.end(), masks, masks + lease->masks().bytes());
      }
    }
    return stream;
  }

  static std::string Digest(const Stream& stream) {
    Fnv1aDigest digest;
    digest.Add({reinterpret_cast<const char*>(stream.images.data()), stream.images.size()});
    digest.Add({reinterpret_cast<const char*>(stream.masks.data()), stream.masks.size()});
    return digest.Hex();
  }

  static testing::TempDir* dir_;
};
testing::TempDir* YCbCrLoaderTest::dir_ = nullptr;

// Each path's reference digest: the same for 1, 2 and 3 threads and with
// the one-pixel and AVX2 kernels as with the widest, and as recorded (rgb +
// hsv is the stream of every release before these options; a change to any
// path's bytes must change its digest here on purpose).
TEST_F(YCbCrLoaderTest, DigestsAreTheSameForThreadsAndKernelsAndAsRecorded) {
  struct Path {
    DecodeColour colour;
    ColourModel model;
    const char* digest;
  };
  const Path paths[] = {{DecodeColour::kRgb, ColourModel::kHsv, "d227cae0aef64323"},
                        {DecodeColour::kYCbCr, ColourModel::kHsv, "39a6b3b964bf48cb"},
                        {DecodeColour::kRgb, ColourModel::kLinear, "d11f94f315bd88bd"},
                        {DecodeColour::kYCbCr, ColourModel::kLinear, "6d6e06079708e41d"}};
  for (const Path& path : paths) {
    SCOPED_TRACE(std::string(DecodeColourName(path.colour)) + " + " +
                 std::string(ColourModelName(path.model)));
    const std::string widest = Digest(Read(Options(path.colour, path.model)));
    for (int threads : {1, 3})
      EXPECT_EQ(Digest(Read(Options(path.colour, path.model, threads))), widest) << threads;
    {
      augment::ScopedAvx2Kernels avx2;
      EXPECT_EQ(Digest(Read(Options(path.colour, path.model))), widest) << "AVX2";
    }
    {
      augment::ScopedOnePixelKernels one_pixel;
      EXPECT_EQ(Digest(Read(Options(path.colour, path.model))), widest) << "one pixel";
    }
    EXPECT_EQ(widest, path.digest);
  }
}

struct Deviation {
  std::array<double, 3> mean{};  // levels
  std::array<int, 3> max{};
};

Deviation Compare(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  Deviation deviation;
  EXPECT_EQ(a.size(), b.size());
  std::array<double, 3> sums{};
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const int difference = std::abs(int(a[i]) - int(b[i]));
    sums[i % 3] += difference;
    deviation.max[i % 3] = std::max(deviation.max[i % 3], difference);
  }
  for (int c = 0; c < 3; ++c) deviation.mean[c] = sums[c] / static_cast<double>(a.size() / 3);
  return deviation;
}

// Bounds from what the demo set measured (see BENCHMARKS.md), with a margin:
// YCbCr against RGB with the same parameters, and the linear model against
// tf.image's over the default option ranges. The masks are the same bytes
// on every path.
TEST_F(YCbCrLoaderTest, EachPathStaysWithinItsMeasuredDeviationAndMasksAreUnchanged) {
  const Stream rgb_hsv = Read(Options(DecodeColour::kRgb, ColourModel::kHsv));
  const Stream ycbcr_hsv = Read(Options(DecodeColour::kYCbCr, ColourModel::kHsv));
  const Stream rgb_linear = Read(Options(DecodeColour::kRgb, ColourModel::kLinear));
  const Stream ycbcr_linear = Read(Options(DecodeColour::kYCbCr, ColourModel::kLinear));
  EXPECT_TRUE(ycbcr_hsv.masks == rgb_hsv.masks);
  EXPECT_TRUE(rgb_linear.masks == rgb_hsv.masks);
  EXPECT_TRUE(ycbcr_linear.masks == rgb_hsv.masks);

  const Deviation ycbcr = Compare(ycbcr_hsv.images, rgb_hsv.images);
  const Deviation linear = Compare(rgb_linear.images, rgb_hsv.images);
  const Deviation both = Compare(ycbcr_linear.images, rgb_linear.images);
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE("channel " + std::to_string(c));
    std::printf(
        "channel %d: ycbcr vs rgb mean %.3f max %d; linear vs hsv mean %.3f max %d; "
        "ycbcr vs rgb under linear mean %.3f max %d\n",
        c, ycbcr.mean[c], ycbcr.max[c], linear.mean[c], linear.max[c], both.mean[c], both.max[c]);
    // Measured: 0.15-0.26 levels; 1.51-1.59.
    EXPECT_LE(ycbcr.mean[c], 0.5);
    EXPECT_LE(both.mean[c], 0.5);
    EXPECT_LE(linear.mean[c], 2.5);
  }
}

}  // namespace
}  // namespace segfeed
