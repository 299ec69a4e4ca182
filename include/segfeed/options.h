#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "segfeed/export.h"
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

// How a photo is scaled before the output window is cut from it (see
// docs/design.md, "Geometry").
enum class ResizeMode {
  // Each axis to the output size: the whole photo fills the output, its
  // aspect changed (Carvana's 1918x1280 squeezed into a square). The
  // rotation turns the squeezed picture.
  kStretch,
  // One factor for both axes so the whole photo fits the output; the rest
  // is padding (letterbox).
  kKeepRatio,
  // One factor so the photo's shorter side is the output's shorter side
  // (the window then crops the longer one).
  kShortSide,
  // One factor so the photo's longer side is the output's longer side.
  kLongSide,
};

// How many windows crop_max_class_ratio draws at most, the first included.
inline constexpr int kCropRedraws = 10;

// Where the output window lies on the scaled photo when they differ in size.
enum class CropPlacement {
  // Uniformly over every position (where the photo is larger) and every
  // padding split (where it is smaller), drawn per sample.
  kRandom,
  // Centred: the same window for every sample (validation).
  kCenter,
};

// An image colour in levels: the same in every channel, or R, G, B.
struct FillColor {
  // Implicit: `fill_value = 7` is 7 in every channel.
  constexpr FillColor(int level = 0)
      : rgb{level, level, level} {}  // NOLINT(google-explicit-constructor)
  constexpr FillColor(int red, int green, int blue) : rgb{red, green, blue} {}
  bool uniform() const { return rgb[0] == rgb[1] && rgb[1] == rgb[2]; }
  bool operator==(const FillColor&) const = default;
  std::array<int, 3> rgb;
};

// What the warp writes where the output looks past an edge of the photo
// that the window reaches without padding past it: the corners a rotation
// brings in, and the taps of the photo's outermost pixels. Padding (where
// the window lies past the photo: keep_ratio's letterbox, a window larger
// than the scaled photo) and all that lies beyond it is always `fill_value`
// in the image and 0 or ignore_index in the mask, whatever the mode.
enum class FillMode {
  // Image pixels become `fill_value`, mask pixels become 0 (background) or
  // a label map's ignore_index, so filled areas never count as foreground.
  kConstant,
  // Image and mask are mirrored about the photo's edge (edge pixel
  // repeated, "fedcba|abcdef"), together, so the mask labels what the
  // image shows. Mirroring about the edge rather than about the edge
  // pixel's centre keeps image and mask aligned when their resolutions
  // differ. Refused where the window pads past every edge for every sample
  // (stretch or keep_ratio with scale_factor.max < 1): nothing to mirror.
  kReflect,
};

// How the colour jitter is computed.
enum class ColourModel {
  // tf.image's semantics exactly: contrast and brightness on RGB, then
  // saturation and hue in HSV, each clamping to the valid range.
  kHsv,
  // Linear in YCbCr (JFIF), as DALI's hsv operator is in YIQ: contrast
  // scales each channel about its mean, brightness adds to Y, saturation
  // scales Cb/Cr about 128, hue turns (Cb, Cr) about (128, 128); the whole
  // jitter and the conversion to RGB are one 3x4 matrix per sample, with
  // one clamp at the end. Not tf.image's figures: saturation blends with
  // the pixel's luma instead of scaling HSV saturation.
  kLinear,
};

// How one sample is augmented. Flips, rotation and resize are one affine
// warp applied to image and mask together; the colour ops touch the image
// only and run in the order contrast, brightness, saturation, hue, each
// clamping to the valid range. Set an op's `*_enabled` to false (or its
// probability/fraction to 0) to switch it off.
struct AugmentOptions {
  // Output size in pixels: the window every sample is cut to. With
  // resize kStretch and no scale, the whole source is resized to exactly
  // this size, so a different aspect ratio stretches it (as the Keras
  // reference does).
  int output_width = 512;
  int output_height = 512;

  // Geometry: the photo is scaled by `resize`, then by a factor drawn from
  // `scale_factor` (when scale_enabled), and the output window is cut from
  // it at `crop`; where the window leaves the photo (padding), the image
  // gets fill_value and the mask 0 (binary) or ignore_index (labels),
  // under every fill_mode.
  ResizeMode resize = ResizeMode::kStretch;
  bool scale_enabled = false;
  UniformRange scale_factor{0.5, 2.0};
  CropPlacement crop = CropPlacement::kRandom;
  // Label maps, random crops: while one class covers more than this share
  // of the window's labelled pixels (ignore pixels not counted), the window
  // is drawn again, up to kCropRedraws times (mmsegmentation's
  // cat_max_ratio); the last draw stays. 1 switches it off; below 1 it is
  // refused for binary masks and with crop kCenter, where it does nothing.
  double crop_max_class_ratio = 1.0;

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

  // How the four colour ops above are computed; see ColourModel.
  ColourModel colour_model = ColourModel::kHsv;

  // Areas a rotation brings in from past the photo's edges (see FillMode);
  // never the padding.
  FillMode fill_mode = FillMode::kConstant;
  // Image colour for padding, and for rotated-in areas under
  // FillMode::kConstant: one level for every channel (`fill_value = 128`)
  // or R, G, B (`{124, 116, 104}`, the ImageNet mean), each in [0, 255].
  FillColor fill_value;

  // When the image must shrink by more than 2x along an axis after decoding,
  // first reduce it by an integer factor with area averaging, so the bilinear
  // warp does not alias. Costs one extra pass over the decoded image; turn it
  // off only to measure that cost. Masks are never pre-reduced (nearest
  // neighbour keeps them exactly binary).
  bool antialias = true;
};

// "constant", "reflect", and the inverse.
SEGFEED_EXPORT std::string_view FillModeName(FillMode mode);
// "hsv", "linear", and the inverse.
SEGFEED_EXPORT std::string_view ColourModelName(ColourModel model);
SEGFEED_EXPORT ColourModel ParseColourModel(std::string_view text);
SEGFEED_EXPORT FillMode ParseFillMode(std::string_view text);

// Throws ConfigError ("rotation_fraction must be in [0, 0.5] (got 0.7)").
SEGFEED_EXPORT void ValidateAugmentOptions(const AugmentOptions& options);

// ---------------------------------------------------------------------------
// Output tensors (see docs/design.md, "Outputs")

// The element type of a batch tensor. Images may be any of the three;
// masks are uint8 or float32 (ValidateOutputOptions refuses a float16 mask:
// half precision saves little on a one-channel tensor and frameworks'
// losses want float32 or integer targets).
enum class ElementType {
  kUint8,    // images 0..255 as decoded; masks exactly 0 or 1
  kFloat16,  // IEEE binary16, stored as uint16_t; images only, [0, 1] before mean/std
  kFloat32,  // images [0, 1] before mean/std; masks exactly 0.0f or 1.0f
  kInt32,    // masks only: class ids and ignore_index (Keras, tf.data)
  kInt64,    // masks only: what PyTorch's CrossEntropyLoss takes as targets
};

// Bytes of one element (1, 2, 4 or 8), for strides and buffer sizes; 0 for a
// value outside the enum.
constexpr int ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return 1;
    case ElementType::kFloat16:
      return 2;
    case ElementType::kFloat32:
    case ElementType::kInt32:
      return 4;
    case ElementType::kInt64:
      return 8;
  }
  return 0;
}

// Image memory layout of one batch. Masks are always N x H x W x 1.
enum class Layout {
  kNHWC,  // channels interleaved (TensorFlow/Keras, NumPy images)
  kNCHW,  // one plane per channel (PyTorch)
};

// What the batch tensors look like. A float32 batch of 32 at 512x512 costs
// 96 MiB of images; float16 halves that, uint8 quarters it (and leaves the
// scaling to the trainer).
struct OutputOptions {
  ElementType image_dtype = ElementType::kFloat32;
  Layout layout = Layout::kNHWC;
  // uint8 or float32.
  ElementType mask_dtype = ElementType::kFloat32;

  // Float images only: each channel c becomes (value / 255 - mean[c]) / std[c],
  // computed in float32. Off by default (plain [0, 1]). The defaults are the
  // ImageNet statistics most pretrained encoders expect; std must be > 0.
  bool normalize = false;
  std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
  std::array<float, 3> std{0.229f, 0.224f, 0.225f};
};

// Throws ConfigError ("mask_dtype must be uint8 or float32 (got float16)").
SEGFEED_EXPORT void ValidateOutputOptions(const OutputOptions& options);

// Stable lower-case names ("float16", "nchw"), for messages and the CLI,
// and their inverses, which accept the same names (ConfigError "... must be
// one of ... (got '...')" for any other).
SEGFEED_EXPORT std::string_view ElementTypeName(ElementType type);
SEGFEED_EXPORT std::string_view LayoutName(Layout layout);
SEGFEED_EXPORT ElementType ParseElementType(std::string_view text);
SEGFEED_EXPORT Layout ParseLayout(std::string_view text);

// ---------------------------------------------------------------------------
// Decoding (see docs/design.md, "Errors")

// What a JPEG warning (e.g. "Premature end of JPEG file") means.
enum class JpegWarnings {
  // The image is refused as corrupt_image: a warning from libjpeg-turbo
  // usually means grey or garbage blocks in the decoded pixels.
  kAreErrors,
  // The decoded pixels are used as they are.
  kAreIgnored,
};

// What a JPEG photo is decoded to.
enum class DecodeColour {
  // RGB pixels, as libjpeg-turbo's decoder upsamples and converts them.
  kRgb,
  // A YCbCr JPEG's planes as stored (chroma at its subsampled size, no
  // upsampling, no conversion in the decoder): the warp samples each plane
  // at the output positions and the conversion to RGB happens once, after
  // the warp. Grey JPEGs decode to Y alone. RGB-coded JPEGs and PNG photos
  // still decode to RGB. Close to kRgb's pixels, not the same bytes.
  kYCbCr,
};

// What a mask's pixels mean.
enum class MaskMode {
  // Two classes: background 0 and foreground 1 (Carvana). See MaskForeground.
  kBinary,
  // Class-index label maps (VOC, Cityscapes, ADE20K): each pixel's palette
  // index, grey value or colour is its class id, kept exactly (after
  // label_map or mask_colors). A GIF's transparent index is a class like any
  // other index. Pixels without a class are ignore_index.
  kLabels,
};

// Which pixels of a binary mask are foreground: one rule for every mask
// format. A pixel's value is its grey level (1 to 16 bits), its palette
// index (palette PNG, GIF) or its colour (RGB, RGBA: alpha is ignored).
// Either rule, a GIF's transparent index and palette indices outside the
// palette are background (nothing is painted there), whatever their colour.
// `segfeed check` reports a binary mask whose file holds more than two
// distinct values as non_binary_mask (the rule still reads it), and one
// whose two (or more) values all read as background, or all as foreground,
// as suspicious_mask.
enum class MaskForeground {
  // A value other than 0 is foreground: a grey level above 0, a palette
  // index above 0 whatever its colour, a colour with any channel above 0.
  // VOC's dark red (128, 0, 0) and grey level 1 are foreground.
  kNonzero,
  // A pixel whose luminance is at least mask_threshold is foreground: the
  // colour's (or palette colour's) 0.299 R + 0.587 G + 0.114 B, a grey level
  // as the 8-bit level it stands for (16-bit v as v x 255 / 65535). The rule
  // of releases before 0.3; dark foregrounds read as background.
  kLuminance,
};

// One entry of DecodeOptions::label_map: the mask's id `source` is trained
// as class `target` (a class id or ignore_index).
struct LabelMapEntry {
  int source = 0;
  int target = 0;
  bool operator==(const LabelMapEntry&) const = default;
};

// One entry of DecodeOptions::mask_colors: pixels of colour `rgb` in an RGB
// (or palette) mask are class `label` (a class id or ignore_index).
struct MaskColor {
  std::array<uint8_t, 3> rgb{};
  int label = 0;
  // The colour marks pixels without a class (CamVid's "Void"): they are
  // ignore_index whatever ignore_index is set to, before or after this
  // entry, and `label` is not read. CLI text "#000000:ignore".
  bool ignored = false;
  bool operator==(const MaskColor&) const = default;
};

// Limits and choices of the decode stage; the same for every file.
//
// What is decoded, and how: JPEG baseline, progressive and arithmetic-coded,
// YCbCr, RGB or grayscale (expanded to RGB); CMYK/YCCK and lossless JPEG are
// refused as unsupported_format; EXIF orientation is ignored (the pixels
// come out as stored). GIF masks: the first frame only, placed at its offset
// on a background (0) canvas of the logical screen size; the transparent
// index is background.
struct DecodeOptions {
  // Largest width x height accepted for an image, a mask's logical screen or
  // a mask frame, in pixels. Checked on the header, before any pixel buffer
  // is allocated, so a hostile header cannot make the loader allocate
  // gigabytes. Raising it raises the per-thread scratch memory a file may
  // demand (3 bytes per pixel for images).
  int64_t max_pixels = 100'000'000;
  // Largest image or mask file accepted, in bytes; a larger one is
  // too_large without being read. Each decode thread has two read buffers
  // (image and mask) that may grow this large for one file, so the memory
  // plan counts 2 x this per thread. 16 MiB holds any photo a camera
  // writes (a 24-megapixel JPEG at quality 95 is ~10 MB) and any mask.
  int64_t max_file_bytes = int64_t{16} << 20;
  // Largest width x height x scans accepted for a JPEG: every scan of a
  // progressive file passes over the whole image, so a small file with
  // hundreds of scans over a large image costs seconds. 10^9 is ~0.5 s of
  // decoding; a 24-megapixel progressive photo (~10 scans) is 2.4 x 10^8.
  int64_t max_pixel_scans = 1'000'000'000;
  // The Loader's (and `segfeed check`'s) decode budget per thread, as a
  // multiple of what the planned source size needs (the decoded photo at
  // its DCT scale, the mask, libjpeg's coefficients for a progressive
  // photo), plus 64 KiB for the decoders' fixed needs, so that a tiny photo
  // always fits: a pair whose headers say it needs more is too_large,
  // refused before anything is allocated, and after a pair larger than
  // planned the buffers shrink back. 4 accepts photos of twice the planned
  // width and height.
  double scratch_headroom = 4.0;
  // mask_foreground luminance: a mask pixel is foreground (1) when its
  // luminance (see MaskForeground) is at least this (0-255), else
  // background (0). Read only by that rule: another value is refused with
  // kNonzero and in labels mode.
  int mask_threshold = 128;
  // Binary masks or class-index label maps; see MaskMode.
  MaskMode mask_mode = MaskMode::kBinary;
  // Binary mode: which pixels are foreground; see MaskForeground. Labels
  // mode refuses kLuminance (a label map's values are class ids).
  MaskForeground mask_foreground = MaskForeground::kNonzero;
  // Labels mode (required there): training classes are 0 .. num_classes - 1,
  // num_classes in [1, 255].
  int num_classes = 0;
  // Labels mode: the value that marks pixels without a class *in the mask
  // files* (VOC's 255 boundary, ADE20K's 0 "other"): a palette index or
  // grey value in [0, 65535] (16-bit PNGs). Such pixels are ignore before
  // label_map is looked at, so a map entry for this value would never
  // apply (refused unless it maps to ignore_index). Without a label_map it
  // must not be a class id. Colour-coded masks (mask_colors) name their
  // unlabelled colour in mask_colors instead. The presets set it for their
  // dataset; binary mode refuses a value other than 255.
  int mask_ignore_value = 255;
  // Labels mode: the value *written into the batch* for pixels without a
  // class: mask_ignore_value's pixels, ids that label_map leaves out,
  // pixels rotated in from outside the source. Must not be a class id; -1
  // and -100 (PyTorch's default) are allowed for int32/int64 masks, so a
  // VOC mask's 255 boundary trains as -100 with no label_map. Binary mode
  // refuses a value other than 255 (it has no ignore pixels).
  int ignore_index = 255;
  // Labels mode: source id -> training id (Cityscapes' 34 ids -> 19
  // classes). Empty: ids are used as they are. Ids not in a non-empty map
  // become ignore_index, and so does mask_ignore_value before the map is
  // looked at. Sources are 0 .. 65535 (16-bit PNGs).
  std::vector<LabelMapEntry> label_map;
  // Labels mode: colour -> class id for colour-coded masks (CamVid). A
  // colour not listed is a bad pixel (label_out_of_range). The option table
  // also reads it from a colour file (CamVid's label_colors.txt), which
  // names the classes too (class_names).
  std::vector<MaskColor> mask_colors;
  // Labels mode: the name of each class, class_names[i] for class i; empty
  // when unnamed, else exactly num_classes names. Reports, legends and the
  // Python Loader's class_names show them; the batches do not depend on
  // them. The presets set their dataset's published names.
  std::vector<std::string> class_names;
  // Whether a JPEG that decodes only with warnings is refused.
  JpegWarnings jpeg_warnings = JpegWarnings::kAreErrors;
  // What JPEG photos are decoded to; see DecodeColour.
  DecodeColour decode_colour = DecodeColour::kRgb;
};

// "error", "ignore", and the inverse.
SEGFEED_EXPORT std::string_view JpegWarningsName(JpegWarnings warnings);
SEGFEED_EXPORT JpegWarnings ParseJpegWarnings(std::string_view text);
// "rgb", "ycbcr", and the inverse.
SEGFEED_EXPORT std::string_view DecodeColourName(DecodeColour colour);
SEGFEED_EXPORT DecodeColour ParseDecodeColour(std::string_view text);
// "binary", "labels"; "nonzero", "luminance"; and the inverses.
SEGFEED_EXPORT std::string_view MaskModeName(MaskMode mode);
SEGFEED_EXPORT MaskMode ParseMaskMode(std::string_view text);
SEGFEED_EXPORT std::string_view MaskForegroundName(MaskForeground rule);
SEGFEED_EXPORT MaskForeground ParseMaskForeground(std::string_view text);

// Throws ConfigError naming the field and the value if `options` is invalid
// (max_pixels < 1, mask_threshold outside 0-255).
SEGFEED_EXPORT void ValidateDecodeOptions(const DecodeOptions& options);

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

// The order in which an epoch visits the samples. Every order is a pure
// function of (seed, epoch): the shard by rank (DistributedSampler's
// padding, as many samples for every rank), the subset and resume from a
// state, at the same or another world size, work the same way for each.
enum class Shuffle {
  // One permutation of all samples per epoch: the best mixing, one read
  // anywhere in the dataset per sample (what a local disk or a page cache
  // serves without noticing).
  kGlobal,
  // Shard datasets only, for a store where a request is expensive: per
  // epoch the shards are permuted and read shard_window at a time, each
  // window's samples in a random order, so every read falls within the
  // window's shards. A batch then draws from about shard_window shards.
  kShards,
  // The listing order, every epoch.
  kNone,
};

// "fail", "skip"; "all", "train", "validation" ("val" is accepted too);
// "global", "shards", "none" ("true" and "false" are accepted for global
// and none, the spellings of when shuffle was a bool); and the inverses.
SEGFEED_EXPORT std::string_view OnBadFileName(OnBadFile policy);
SEGFEED_EXPORT OnBadFile ParseOnBadFile(std::string_view text);
SEGFEED_EXPORT std::string_view SubsetName(Subset subset);
SEGFEED_EXPORT Subset ParseSubset(std::string_view text);
SEGFEED_EXPORT std::string_view ShuffleName(Shuffle shuffle);
SEGFEED_EXPORT Shuffle ParseShuffle(std::string_view text);

// Shards in object storage (s3://bucket/prefix/, https://host/path/): how
// they are reached and read. Endpoint, region and credentials come from the
// environment and the profile files as the AWS tools take them (README,
// "Object storage"); nothing here holds a secret. None of these changes a
// batch's bytes.
struct ObjectStorageOptions {
  // Read s3:// without signing, as the AWS CLI's --no-sign-request: for a
  // public bucket (http(s):// URLs are never signed).
  bool no_sign_request = false;
  // Attempts per request, the first included. Retried: 5xx, 503 SlowDown,
  // 429, resets, timeouts, short or wrong bodies, with exponential backoff
  // and jitter; 403 and 404 are final.
  int attempts = 5;
  // Setting up a connection (TCP and TLS) longer than this fails the
  // attempt.
  int connect_timeout_ms = 5000;
  // A transfer that receives nothing for this long fails the attempt.
  int stall_timeout_ms = 10000;
  // Bytes read ahead of the decode threads (in flight or waiting), counted
  // in the memory plan. More hides more latency; each byte is host memory.
  int64_t read_ahead_bytes = int64_t{64} << 20;
  // Connections to the store at most (requests beyond wait for one).
  int connections = 16;
  // A folder on local disk that keeps the members fetched once, so the next
  // epoch (or another rank of this node sharing the folder) reads them from
  // there without a request; empty: no cache. Only for datasets in object
  // storage (a local dataset with one is a ConfigError).
  std::string cache_dir;
  // The most bytes the cache's entries take, for every process sharing the
  // folder at once; the least recently used make room. Only used with
  // cache_dir.
  int64_t cache_limit = int64_t{10} << 30;
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
  // The epoch's order: a new permutation of all samples every epoch, the
  // shard-block order (shard datasets), or the listing order (see Shuffle).
  Shuffle shuffle = Shuffle::kGlobal;
  // With shuffle kShards: the shards read at a time (K). Larger mixes
  // better (a batch draws from about K shards) but keeps K shards' reads in
  // flight; 0 means kDefaultShardWindow. Must be 0 for the other orders
  // (ConfigError), which have no window.
  int shard_window = 0;
  // The window of shuffle kShards when shard_window is 0: 4 shards, the
  // smallest window whose batches draw from more than a few shards (about
  // 4.2 distinct shards per batch of 32 against 1.3 for one shard at a
  // time, docs/shards.md), while a store serves only 4 sequential reads
  // at once.
  static constexpr int kDefaultShardWindow = 4;
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
  // Shards in object storage: signing, retries, timeouts, read-ahead.
  ObjectStorageOptions object_storage;
};

// Throws ConfigError naming the field and the value
// ("batch_size must be >= 1 (got 0)"); also validates the nested structs.
SEGFEED_EXPORT void ValidateLoaderOptions(const LoaderOptions& options);

}  // namespace segfeed
