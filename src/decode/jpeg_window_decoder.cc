#include "decode/jpeg_window_decoder.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "source/scratch_growth.h"

// After <cstdio>: jpeglib.h uses FILE without including it.
#include <jpeglib.h>

namespace segfeed::decode {
namespace {

// libjpeg's error manager, first member so that libjpeg's pointer to it is
// a pointer to the whole: where to jump on an error, and the message.
struct ErrorManager {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  bool stop_on_warning = true;
  bool warned = false;
  bool stopped_on_warning = false;
  char message[JMSG_LENGTH_MAX] = {};
};

ErrorManager* ErrorsOf(j_common_ptr decompress) {
  return reinterpret_cast<ErrorManager*>(decompress->err);
}

// Keeps the message instead of printing it (libjpeg's default writes to
// stderr).
void KeepMessage(j_common_ptr decompress) {
  (*decompress->err->format_message)(decompress, ErrorsOf(decompress)->message);
}

// libjpeg's default exits the process; this returns to DecodeRows().
[[noreturn]] void JumpOnError(j_common_ptr decompress) {
  KeepMessage(decompress);
  std::longjmp(ErrorsOf(decompress)->jump, 1);
}

// As TurboJPEG does: the first warning's message is kept, and a warning
// stops the decode when warnings are errors.
void NoteWarning(j_common_ptr decompress, int level) {
  if (level >= 0) return;  // trace messages
  ErrorManager* errors = ErrorsOf(decompress);
  if (!errors->warned) KeepMessage(decompress);
  errors->warned = true;
  if (!errors->stop_on_warning) return;
  errors->stopped_on_warning = true;
  std::longjmp(errors->jump, 1);
}

// The decompressor of one file; destroyed (with all libjpeg allocated for
// it) when the decode returns, whatever happened.
struct Decompressor {
  jpeg_decompress_struct state{};
  ErrorManager errors;
  Decompressor() {
    state.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = JumpOnError;
    errors.manager.emit_message = NoteWarning;
    errors.manager.output_message = KeepMessage;
    jpeg_create_decompress(&state);
  }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  ~Decompressor() { jpeg_destroy_decompress(&state); }
};

// What DecodeRows() decoded, in pixels at the decode's scale.
struct DecodedRows {
  int full_width = 0;  // the whole image's size at the scale
  int full_height = 0;
  ImageWindow decoded;
};

// Every libjpeg call of a decode, in the one frame setjmp() returns to: it
// holds no C++ object with a destructor, so the longjmp of an error skips
// nothing but libjpeg's own frames. Returns false after an error (the
// message in the error manager). `out` is sized on the way, by `resize`,
// a plain function pointer so that nothing here owns memory.
bool DecodeRows(jpeg_decompress_struct* decompress, ErrorManager* errors,
                std::span<const uint8_t> jpeg, DctScale scale, const ImageWindow& window,
                uint8_t* (*resize)(void* context, int width, int height), void* context,
                DecodedRows* result) {
  if (setjmp(errors->jump) != 0) return false;
  jpeg_mem_src(decompress, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(decompress, TRUE);
  // TurboJPEG's RGB decode: the same colour space, the default (accurate)
  // IDCT and fancy upsampling, so the pixels are its pixels.
  decompress->out_color_space = JCS_EXT_RGB;
  decompress->scale_num = static_cast<unsigned>(scale.num);
  decompress->scale_denom = static_cast<unsigned>(scale.denom);
  jpeg_start_decompress(decompress);
  const int width = static_cast<int>(decompress->output_width);
  const int height = static_cast<int>(decompress->output_height);
  result->full_width = width;
  result->full_height = height;
  uint8_t* pixels = resize(context, width, height);
  // One iMCU on each side of the window (see the class comment).
  const int imcu_width = decompress->max_h_samp_factor * decompress->min_DCT_scaled_size;
  const int imcu_height = decompress->max_v_samp_factor * decompress->min_DCT_scaled_size;
  const int first_row = std::clamp(window.y - imcu_height, 0, height);
  const int end_row = std::clamp(window.y + window.height + imcu_height, first_row, height);
  const int first_column = std::clamp(window.x - imcu_width, 0, width);
  const int end_column = std::clamp(window.x + window.width + imcu_width, first_column, width);
  JDIMENSION x = static_cast<JDIMENSION>(first_column);
  JDIMENSION columns = static_cast<JDIMENSION>(std::max(1, end_column - first_column));
  if (columns < static_cast<JDIMENSION>(width)) jpeg_crop_scanline(decompress, &x, &columns);
  if (first_row > 0) jpeg_skip_scanlines(decompress, static_cast<JDIMENSION>(first_row));
  const size_t row_bytes = static_cast<size_t>(width) * 3;
  while (decompress->output_scanline < static_cast<JDIMENSION>(end_row)) {
    JSAMPROW row = pixels + decompress->output_scanline * row_bytes + size_t{x} * 3;
    // A memory source never suspends: no row means libjpeg gave up.
    if (jpeg_read_scanlines(decompress, &row, 1) != 1) {
      std::snprintf(errors->message, sizeof errors->message, "no scanline %u",
                    decompress->output_scanline);
      return false;
    }
  }
  result->decoded = {static_cast<int>(x), first_row, static_cast<int>(columns),
                     end_row - first_row};
  // The rows below the window are not needed: no finish, no EOI check.
  jpeg_abort_decompress(decompress);
  return true;
}

struct ResizeContext {
  DecodedImage* image;
  int poison_byte;  // fills the image first, or -1: left as it was
};

uint8_t* ResizeImage(void* context, int width, int height) {
  auto* resize = static_cast<ResizeContext*>(context);
  DecodedImage* image = resize->image;
  image->width = width;
  image->height = height;
  source::ResizeScratch(&image->pixels, static_cast<size_t>(width) * height * 3);
  if (resize->poison_byte >= 0)
    std::fill(image->pixels.begin(), image->pixels.end(),
              static_cast<uint8_t>(resize->poison_byte));
  return image->pixels.data();
}

// TurboJPEG's TJFLAG_LIMITSCANS: a file of more scans is refused.
constexpr int kMaxScans = 500;
// What SEGFEED_JPEG_WINDOW=always fills the image with outside the window.
constexpr int kPoisonByte = 0xA5;

}  // namespace

JpegWindowDecoder::JpegWindowDecoder(const DecodeOptions& options) : options_(options) {
  const char* mode = std::getenv("SEGFEED_JPEG_WINDOW");
  const std::string_view text = mode ? mode : "";
  if (text == "always") mode_ = Mode::kAlways, poison_byte_ = kPoisonByte;
  if (text == "never") mode_ = Mode::kNever;
}

bool JpegWindowDecoder::Chooses(const JpegHeader& header, DctScale scale,
                                const ImageWindow& window) const {
  if (mode_ == Mode::kNever || header.scans > kMaxScans) return false;
  if (mode_ == Mode::kAlways) return true;
  if (header.scans != 1) return false;
  const double area = static_cast<double>(scale.Apply(header.width)) * scale.Apply(header.height);
  return static_cast<double>(window.width) * window.height <= kMaxWindowFraction * area;
}

Status JpegWindowDecoder::Decode(std::span<const uint8_t> jpeg, DctScale scale,
                                 const ImageWindow& window, std::string_view path,
                                 DecodedImage* out) {
  out->layout = DecodedImage::Layout::kRgb;
  out->luma_stride = out->luma_rows = 0;
  out->chroma_width = out->chroma_height = 0;
  out->chroma_step_x = out->chroma_step_y = 1;
  Decompressor decompressor;
  decompressor.errors.stop_on_warning = options_.jpeg_warnings == JpegWarnings::kAreErrors;
  ResizeContext context{out, poison_byte_};
  out->windowed = false;
  DecodedRows rows;
  const bool decoded = DecodeRows(&decompressor.state, &decompressor.errors, jpeg, scale, window,
                                  ResizeImage, &context, &rows);
  if (!decoded) {
    const bool warning_only = decompressor.errors.stopped_on_warning;
    return Error{ErrorKind::kCorruptImage, std::string(path),
                 std::string(warning_only ? "JPEG data warning: " : "corrupt JPEG data: ") +
                     decompressor.errors.message};
  }
  out->windowed = true;
  out->decoded = rows.decoded;
  return {};
}

}  // namespace segfeed::decode
