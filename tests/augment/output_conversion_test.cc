#include "augment/output_conversion.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "augment/simd_dispatch.h"
#include "kernel_scopes.h"
#include "segfeed/errors.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::NoiseImage;
using segfeed::testing::View;

constexpr uint8_t kSentinel = 0xAB;

// Expected element (y, x, c) by the documented formula, one at a time.
float NaiveValue(const OutputOptions& options, uint8_t level, int c) {
  const float mean = options.normalize ? options.mean[c] : 0.0f;
  const float std = options.normalize ? options.std[c] : 1.0f;
  return (static_cast<float>(level) / 255.0f - mean) / std;
}

// float16 bits by OpenCV's own (vectorised) conversion, independent of the
// converter's tables.
uint16_t Float16Bits(float value) {
  cv::Mat f32(1, 1, CV_32F, cv::Scalar(value));
  cv::Mat f16;
  f32.convertTo(f16, CV_16F);
  return f16.at<uint16_t>(0, 0);
}

TEST(OutputConversionTest, AllDtypesAndLayoutsMatchNaiveLoop) {
  const int width = 37, height = 23;  // odd sizes catch row/plane mix-ups
  const cv::Mat image = NoiseImage(width, height, 3, 21);
  for (ElementType dtype : {ElementType::kUint8, ElementType::kFloat16, ElementType::kFloat32}) {
    for (Layout layout : {Layout::kNHWC, Layout::kNCHW}) {
      for (bool normalize : {false, true}) {
        if (normalize && dtype == ElementType::kUint8) continue;
        OutputOptions options;
        options.image_dtype = dtype;
        options.layout = layout;
        options.normalize = normalize;
        options.mean = {0.5f, 0.25f, 0.125f};
        options.std = {0.2f, 0.3f, 0.7f};
        const OutputConverter converter(options);
        const std::string label = std::string(ElementTypeName(dtype)) + " " +
                                  std::string(LayoutName(layout)) + " normalize " +
                                  std::to_string(normalize);

        // Padded destination: rows (NHWC) or planes (NCHW) have slack that
        // must stay untouched.
        const ptrdiff_t e = ElementBytes(dtype);
        StridedImage dst;
        std::vector<uint8_t> buffer;
        if (layout == Layout::kNHWC) {
          buffer.assign((width * 3 * e + 16) * height, kSentinel);
          dst = {buffer.data(), width * 3 * e + 16, 3 * e, e};
        } else {
          const ptrdiff_t row = width * e + 8;
          const ptrdiff_t plane = row * height + 32;
          buffer.assign(plane * 3, kSentinel);
          dst = {buffer.data(), row, e, plane};
        }
        converter.ConvertImage(View(image), dst);

        std::vector<bool> written(buffer.size(), false);
        int mismatches = 0;
        for (int y = 0; y < height; ++y) {
          for (int x = 0; x < width; ++x) {
            for (int c = 0; c < 3; ++c) {
              const ptrdiff_t offset =
                  y * dst.y_stride_bytes + x * dst.x_stride_bytes + c * dst.channel_stride_bytes;
              for (ptrdiff_t i = 0; i < e; ++i) written[offset + i] = true;
              const uint8_t level = image.at<cv::Vec3b>(y, x)[c];
              const float expected = NaiveValue(options, level, c);
              if (dtype == ElementType::kUint8) {
                mismatches += buffer[offset] != level;
              } else if (dtype == ElementType::kFloat16) {
                uint16_t got;
                std::memcpy(&got, &buffer[offset], 2);
                mismatches += got != Float16Bits(expected);
              } else {
                float got;
                std::memcpy(&got, &buffer[offset], 4);
                mismatches += got != expected;
              }
            }
          }
        }
        EXPECT_EQ(mismatches, 0) << label;
        int padding_touched = 0;
        for (size_t i = 0; i < buffer.size(); ++i)
          padding_touched += !written[i] && buffer[i] != kSentinel;
        EXPECT_EQ(padding_touched, 0) << label;
      }
    }
  }
}

// The float32 span kernels (AVX-512 computes level / 255 without a
// division) give the documented float32 value for every level in every
// channel, with and without normalisation, on each kernel width.
TEST(OutputConversionTest, Float32SpansMatchFormulaForEveryLevelOnEveryKernel) {
  const int count = 256 + 16 + 7;  // every level, a full vector more, a tail
  std::vector<uint8_t> r(count), g(count), b(count);
  for (int i = 0; i < count; ++i) {
    r[i] = static_cast<uint8_t>(i);
    g[i] = static_cast<uint8_t>(255 - i);
    b[i] = static_cast<uint8_t>(i * 7 + 3);
  }
  enum class Kernel { kScalar, kAvx2, kWidest };
  for (Kernel kernel : {Kernel::kScalar, Kernel::kAvx2, Kernel::kWidest}) {
    for (Layout layout : {Layout::kNHWC, Layout::kNCHW}) {
      for (bool normalize : {false, true}) {
        OutputOptions options;
        options.layout = layout;
        options.normalize = normalize;
        options.mean = {0.5f, 0.25f, 0.125f};
        options.std = {0.2f, 0.3f, 0.7f};
        const OutputConverter converter(options);
        std::vector<float> out(3 * count, -1.0f);
        const StridedImage dst = converter.DenseImage(out.data(), count, 1);
        {
          std::optional<ScopedOnePixelKernels> scalar;
          std::optional<ScopedAvx2Kernels> avx2;
          if (kernel == Kernel::kScalar) scalar.emplace();
          if (kernel == Kernel::kAvx2) avx2.emplace();
          converter.ConvertPlanarSpan(r.data(), g.data(), b.data(), count, dst, 0, 0);
        }
        int mismatches = 0;
        for (int i = 0; i < count; ++i) {
          const uint8_t levels[3] = {r[i], g[i], b[i]};
          for (int c = 0; c < 3; ++c) {
            const float got = layout == Layout::kNHWC ? out[3 * i + c] : out[c * count + i];
            mismatches += got != NaiveValue(options, levels[c], c);
          }
        }
        EXPECT_EQ(mismatches, 0) << "kernel " << static_cast<int>(kernel) << " "
                                 << LayoutName(layout) << " normalize " << normalize;
      }
    }
  }
}

TEST(OutputConversionTest, DenseStridesMatchLayout) {
  OutputOptions options;
  options.image_dtype = ElementType::kFloat16;
  options.layout = Layout::kNCHW;
  const OutputConverter nchw(options);
  char base = 0;
  const StridedImage planar = nchw.DenseImage(&base, 5, 4);
  EXPECT_EQ(planar.y_stride_bytes, 10);
  EXPECT_EQ(planar.x_stride_bytes, 2);
  EXPECT_EQ(planar.channel_stride_bytes, 40);
  options.layout = Layout::kNHWC;
  const StridedImage interleaved = OutputConverter(options).DenseImage(&base, 5, 4);
  EXPECT_EQ(interleaved.y_stride_bytes, 30);
  EXPECT_EQ(interleaved.x_stride_bytes, 6);
  EXPECT_EQ(interleaved.channel_stride_bytes, 2);
}

TEST(OutputConversionTest, MasksBecomeExactlyZeroOrOne) {
  cv::Mat mask(3, 4, CV_8UC1);
  const uint8_t values[] = {0, 1, 255, 7, 0, 0, 1, 1, 128, 0, 2, 0};
  std::memcpy(mask.data, values, sizeof values);
  for (ElementType dtype : {ElementType::kUint8, ElementType::kFloat32}) {
    OutputOptions options;
    options.mask_dtype = dtype;
    const OutputConverter converter(options);
    const int e = ElementBytes(dtype);
    // Padded rows and a strided x to exercise the general path as well.
    for (ptrdiff_t x_stride : {ptrdiff_t{e}, ptrdiff_t{2 * e}}) {
      const ptrdiff_t row = 4 * x_stride + 4;
      std::vector<uint8_t> buffer(row * 3, kSentinel);
      converter.ConvertMask(View(mask), {buffer.data(), row, x_stride});
      for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 4; ++x) {
          const uint8_t* p = &buffer[y * row + x * x_stride];
          const bool foreground = values[y * 4 + x] != 0;
          if (dtype == ElementType::kUint8) {
            EXPECT_EQ(*p, foreground ? 1 : 0) << y << "," << x;
          } else {
            float got;
            std::memcpy(&got, p, 4);
            EXPECT_EQ(got, foreground ? 1.0f : 0.0f) << y << "," << x;
          }
        }
      }
    }
  }
}

TEST(OutputConversionTest, LabelIdsKeepTheirValueAndIgnoreBecomesIgnoreIndexOnEveryKernel) {
  // Every id in a row long enough for two vector steps and a tail, with the
  // ignore value at every position of a step in some row.
  const int width = 16 * 2 + 5, height = 20;
  cv::Mat ids(height, width, CV_8UC1);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      ids.at<uint8_t>(y, x) = x == y || x == y + 16 ? 200 : static_cast<uint8_t>(y * width + x);
    }
  }
  for (bool avx2 : {false, true}) {
    for (ElementType dtype : {ElementType::kUint8, ElementType::kInt32, ElementType::kInt64}) {
      for (int ignore_index : {255, -100, 200}) {
        OutputOptions options;
        options.mask_dtype = dtype;
        const OutputConverter converter(
            options,
            MaskEncoding{.labels = true, .ignore_value = 200, .ignore_index = ignore_index});
        const int e = ElementBytes(dtype);
        for (ptrdiff_t x_stride : {ptrdiff_t{e}, ptrdiff_t{2 * e}}) {
          const ptrdiff_t row = width * x_stride + 8;
          std::vector<uint8_t> buffer(row * height, kSentinel);
          {
            std::optional<ScopedOnePixelKernels> scalar;
            if (!avx2) scalar.emplace();
            converter.ConvertMask(View(ids), {buffer.data(), row, x_stride});
          }
          int mismatches = 0;
          for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
              const uint8_t id = ids.at<uint8_t>(y, x);
              const int64_t want = id == 200 ? ignore_index : id;
              const uint8_t* p = &buffer[y * row + x * x_stride];
              int64_t got = 0;
              if (dtype == ElementType::kUint8) got = *p;
              if (dtype == ElementType::kInt32) got = *reinterpret_cast<const int32_t*>(p);
              if (dtype == ElementType::kInt64) got = *reinterpret_cast<const int64_t*>(p);
              mismatches +=
                  dtype == ElementType::kUint8 ? got != static_cast<uint8_t>(want) : got != want;
            }
            // The row's slack is untouched.
            for (ptrdiff_t b = width * x_stride; b < row; ++b)
              mismatches += buffer[y * row + b] != kSentinel;
          }
          EXPECT_EQ(mismatches, 0) << "avx2 " << avx2 << " " << ElementTypeName(dtype)
                                   << " ignore_index " << ignore_index << " x stride " << x_stride;
        }
      }
    }
  }
}

TEST(OutputConversionTest, InPlaceUint8MaskBecomesZeroOrOne) {
  cv::Mat mask(2, 40, CV_8UC1);
  for (int i = 0; i < 80; ++i) mask.data[i] = static_cast<uint8_t>(i * 37);
  const cv::Mat original = mask.clone();
  OutputOptions options;
  options.mask_dtype = ElementType::kUint8;
  OutputConverter(options).ConvertMask(View(mask), {mask.data, 40, 1});
  for (int i = 0; i < 80; ++i) EXPECT_EQ(mask.data[i], original.data[i] != 0 ? 1 : 0) << i;
}

TEST(OutputConversionTest, InPlaceUint8ImageIsUnchanged) {
  cv::Mat image = NoiseImage(16, 8, 3, 4);
  const cv::Mat original = image.clone();
  OutputOptions options;
  options.image_dtype = ElementType::kUint8;
  const OutputConverter converter(options);
  converter.ConvertImage(View(image), {image.data, static_cast<ptrdiff_t>(image.step), 3, 1});
  EXPECT_EQ(cv::norm(image, original, cv::NORM_INF), 0);
}

TEST(OutputConversionTest, ConstructorRejectsInvalidOptions) {
  OutputOptions options;
  options.image_dtype = ElementType::kUint8;
  options.normalize = true;
  EXPECT_THROW(OutputConverter{options}, ConfigError);
}

}  // namespace
}  // namespace segfeed::augment
