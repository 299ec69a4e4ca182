#pragma once

#include <array>
#include <cstdint>

#include "segfeed/export.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"

namespace segfeed {

// Configuration structs. Every field has its default in the declaration; the
// constructor that takes a struct validates it once and throws ConfigError
// naming the field and the bad value. Validate*() below do that check and are
// public so callers (and the Python binding) can check early.

// ---------------------------------------------------------------------------
// Augmentation (see docs/design.md, "Augmentation semantics")

// A closed interval [min, max] a parameter is drawn from uniformly. min == max
// gives a constant.
struct UniformRange {
  double min = 0.0;
  double max = 0.0;
};

// What the warp writes where the rotated output looks outside the source.
enum class FillMode {
  // Image pixels become `fill_value` in every channel, mask pixels become 0
  // (background), so filled areas never count as foreground.
  kConstant,
  // Image and mask are mirrored about the source's edge (edge pixel repeated,
  // "fedcba|abcdef"). Mirroring about the edge rather than about the edge
  // pixel's centre keeps image and mask aligned when their resolutions differ.
  kReflect,
};

// How one sample is augmented. Flips, rotation and resize are one affine
// warp applied to image and mask together; the colour ops touch the image
// only and run in the order contrast, brightness, saturation, hue, each
// clamping to the valid range. Set an op's `*_enabled` to false (or its
// probability/fraction to 0) to switch it off.
struct AugmentOptions {
  // Output size in pixels. The source is resized to exactly this size, so a
  // different aspect ratio stretches it (as the Keras reference does).
  int output_width = 512;
  int output_height = 512;

  // Probability of a left-right (mirror) flip, in [0, 1].
  double flip_lr_probability = 0.5;
  // Probability of an up-down flip, in [0, 1].
  double flip_ud_probability = 0.5;

  // Rotation about the output centre by angle ~ U(-f*360°, +f*360°),
  // counter-clockwise for positive angles; f in [0, 0.5], 0 switches it off.
  // Large angles rotate more of the output in from outside the source.
  double rotation_fraction = 0.2;

  // Contrast: each channel c becomes (c - mean_c) * factor + mean_c, with the
  // channel's mean over the whole (warped) image. factor >= 0.
  bool contrast_enabled = true;
  UniformRange contrast_factor{0.4, 0.6};

  // Brightness: delta added on the [0, 1] scale; within [-1, 1].
  bool brightness_enabled = true;
  UniformRange brightness_delta{-0.2, 0.2};

  // Saturation: HSV saturation multiplied by factor (then clamped to 1).
  // factor >= 0; 0 gives grey.
  bool saturation_enabled = true;
  UniformRange saturation_factor{0.4, 0.6};

  // Hue: delta added to the HSV hue, as a fraction of the hue circle
  // (0.5 = half a turn); within [-0.5, 0.5].
  bool hue_enabled = true;
  UniformRange hue_delta{-0.2, 0.2};

  // Areas rotated in from outside the source.
  FillMode fill_mode = FillMode::kConstant;
  // Image value for FillMode::kConstant, in [0, 255], same in all channels.
  int fill_value = 0;

  // When the image must shrink by more than 2x along an axis after decoding,
  // first reduce it by an integer factor with area averaging, so the bilinear
  // warp does not alias. Costs one extra pass over the decoded image; turn it
  // off only to measure that cost. Masks are never pre-reduced (nearest
  // neighbour keeps them exactly binary).
  bool antialias = true;
};

// Throws ConfigError ("rotation_fraction must be in [0, 0.5] (got 0.7)").
SEGFEED_EXPORT void ValidateAugmentOptions(const AugmentOptions& options);

// ---------------------------------------------------------------------------
// Output tensors (see docs/design.md, "Outputs")

enum class ImageDtype {
  kUint8,    // 0..255, as decoded
  kFloat16,  // IEEE binary16, stored as uint16_t, [0, 1] before mean/std
  kFloat32,  // [0, 1] before mean/std
};

enum class MaskDtype {
  kUint8,    // exactly 0 or 1
  kFloat32,  // exactly 0.0f or 1.0f
};

// Image memory layout of one batch. Masks are always N x H x W x 1.
enum class Layout {
  kNHWC,  // channels interleaved (TensorFlow/Keras, NumPy images)
  kNCHW,  // one plane per channel (PyTorch)
};

// What the batch tensors look like. A float32 batch of 32 at 512x512 costs
// 96 MiB of images; float16 halves that, uint8 quarters it (and leaves the
// scaling to the trainer).
struct OutputOptions {
  ImageDtype image_dtype = ImageDtype::kFloat32;
  Layout layout = Layout::kNHWC;
  MaskDtype mask_dtype = MaskDtype::kFloat32;

  // Float images only: each channel c becomes (value / 255 - mean[c]) / std[c],
  // computed in float32. Off by default (plain [0, 1]). The defaults are the
  // ImageNet statistics most pretrained encoders expect; std must be > 0.
  bool normalize = false;
  std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
  std::array<float, 3> std{0.229f, 0.224f, 0.225f};
};

// Throws ConfigError ("normalize requires a float image_dtype (got uint8)").
SEGFEED_EXPORT void ValidateOutputOptions(const OutputOptions& options);

// Element sizes in bytes, for computing strides and buffer sizes.
SEGFEED_EXPORT int ImageDtypeBytes(ImageDtype dtype);
SEGFEED_EXPORT int MaskDtypeBytes(MaskDtype dtype);

// Stable lower-case names ("float16", "nchw"), for messages and the CLI.
SEGFEED_EXPORT const char* ImageDtypeName(ImageDtype dtype);
SEGFEED_EXPORT const char* MaskDtypeName(MaskDtype dtype);
SEGFEED_EXPORT const char* LayoutName(Layout layout);

// ---------------------------------------------------------------------------
// The loader (see docs/design.md, "Data flow", "Memory model", "Determinism")

// What to do with a sample whose image or mask cannot be read or decoded.
enum class OnBadFile {
  // next() throws a FileError naming the file and the reason; the loader is
  // closed. Images without a mask stop the loader at construction. Nothing
  // is silently lost.
  kFail,
  // The sample's slot is refilled with another sample chosen by the seed, so
  // batches stay full and the stream stays reproducible; the file is listed
  // in LoaderStats::skipped_files. Replacements are drawn from a sequence
  // fixed by (seed, epoch, position), taking the first good pair in it, so
  // the stream does not depend on thread timing. Images without a mask are
  // left out and listed in LoaderStats::unpaired_files. Only when a slot
  // finds no good pair in 256 draws (a dataset almost all bad) does next()
  // throw, saying how many pairs were bad.
  kSkip,
};

// Which part of the dataset a loader streams. The split is a pure function
// of the seed, so a training and a validation loader built with the same seed
// and fraction never overlap.
enum class Subset {
  kAll,
  kTrain,       // all pairs but the validation ones
  kValidation,  // round(validation_fraction x pairs) pairs chosen by the seed
};

struct LoaderOptions {
  // Samples per batch.
  int batch_size = 16;
  // Batch buffers in the pool, the one the consumer holds included. Each
  // costs batch_size x (image + mask) bytes of pinned memory; 2 lets loading
  // overlap training, more only helps when load times vary a lot.
  int prefetch_batches = 2;
  // Threads decoding and augmenting; 0 means one per core. Each costs one
  // set of per-thread scratch buffers (see PlanMemory()).
  int threads = 0;
  // Seeds the epoch order, the subset split, the replacements of skipped
  // files and every augmentation parameter.
  uint64_t seed = 0;
  // Visit the samples in a new random order every epoch (else in listing order).
  bool shuffle = true;
  // Drop the last batch of an epoch when it would be short; otherwise it is
  // delivered with fewer samples and says so (Lease::size() < batch_size).
  bool drop_last = false;
  Subset subset = Subset::kAll;
  // Fraction of the pairs in the validation subset, in [0, 1].
  double validation_fraction = 0.1;
  // Shard of the epoch this process streams, DistributedSampler style: the
  // epoch's permutation padded to a multiple of world_size, of which rank r
  // takes every world_size-th sample from r.
  int rank = 0;
  int world_size = 1;
  // Take rank and world_size from the RANK and WORLD_SIZE environment
  // variables (as torchrun sets them) instead of the two fields above.
  bool shard_from_environment = false;
  OnBadFile on_bad_file = OnBadFile::kFail;
  // Where batch buffers come from; see PinnedMode.
  PinnedMode pinned = PinnedMode::kAuto;
  // Flips, rotation, colour jitter and the output size.
  AugmentOptions augment;
  // Dtypes, layout and normalisation of the batch tensors.
  OutputOptions output;
  // Decode limits (max_pixels) and the mask threshold.
  DecodeOptions decode;
};

// Throws ConfigError naming the field and the value
// ("batch_size must be >= 1 (got 0)"); also validates the nested structs.
SEGFEED_EXPORT void ValidateLoaderOptions(const LoaderOptions& options);

}  // namespace segfeed
