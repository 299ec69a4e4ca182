#include "pipeline/sample_loader.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "augment/warp_footprint.h"
#include "counter_rng.h"
#include "stage_clock.h"

namespace segfeed::pipeline {
namespace {

// Replacement samples for skipped files are drawn from this stream.
constexpr uint64_t kReplacementSalt = 0x2E91ACE;
// A slot gives up after this many draws without a good pair. Pairs already
// known to be bad cost no reading, so this trips only on a dataset almost
// all bad (with 90% bad pairs a slot fails once in 10^11), where training
// would be meaningless and retrying forever would hang.
constexpr int kMaxDrawsPerSlot = 256;

}  // namespace

SampleLoader::SampleLoader(const LoaderOptions& options, source::SampleSource* source,
                           const std::vector<uint32_t>& sample_ids, memory::BatchBuffers* buffers,
                           int workers, int source_width, int source_height,
                           int64_t decode_budget_bytes, const SourceFormats& formats)
    : options_(options),
      source_(source),
      sample_ids_(sample_ids),
      buffers_(buffers),
      known_bad_(std::make_unique<std::atomic<bool>[]>(source->sample_count())) {
  workers_.reserve(workers);
  for (int i = 0; i < workers; ++i) {
    workers_.push_back(std::make_unique<Worker>(options_));
    const auto [target_width, target_height] =
        FinestDecodeTarget(options_.augment, source_width, source_height);
    workers_.back()->reader.Reserve(source_width, source_height, target_width, target_height,
                                    decode_budget_bytes, formats);
    workers_.back()->PublishMemory();
  }
}

void SampleLoader::StartEpoch(int64_t epoch, const std::vector<uint32_t>* order) {
  epoch_ = epoch;
  order_ = order;
  source_->Prefetch(*order);
}

uint32_t SampleLoader::DrawPair(const SampleTask& task, int draw) const {
  if (draw == 0) return (*order_)[task.position];
  const CounterRng replacements(options_.seed ^ kReplacementSalt, static_cast<uint64_t>(epoch_),
                                static_cast<uint64_t>(task.position));
  return sample_ids_[replacements.At(draw) % sample_ids_.size()];
}

Status SampleLoader::Load(const SampleTask& task, int worker_index) {
  Worker& worker = *workers_[worker_index];
  for (int draw = 0;; ++draw) {
    const uint32_t id = DrawPair(task, draw);
    if (known_bad_[id].load()) {
      // Read once is enough: a bad file (a huge progressive JPEG that takes
      // seconds to refuse, say) costs nothing in later draws and epochs.
      if (draw == 0) ++samples_skipped_;
    } else {
      // A replacement gets parameters of its own, not a copy of those its
      // pair has elsewhere in the epoch.
      const uint64_t params_key = draw == 0 ? id : id | (static_cast<uint64_t>(draw) << 32);
      Status status = LoadPair(id, params_key, task, worker);
      worker.PublishMemory();
      if (status.ok()) {
        ++(draw == 0 ? samples_loaded_ : samples_replaced_);
        return {};
      }
      if (options_.on_bad_file == OnBadFile::kFail) return status;
      if (draw == 0) ++samples_skipped_;
      RecordBadPair(id, status.error());
    }
    if (known_bad_count_.load() == static_cast<int64_t>(source_->sample_count()) ||
        draw + 1 == kMaxDrawsPerSlot) {
      return GiveUpError(id, draw + 1);
    }
  }
}

Status SampleLoader::LoadPair(uint32_t id, uint64_t params_key, const SampleTask& task,
                              Worker& worker) {
  const int output_width = options_.augment.output_width;
  const int output_height = options_.augment.output_height;
  // Drawn first: the window's scale decides the DCT scale the photo needs.
  AugmentParams params =
      DrawAugmentParams(options_.augment, options_.seed, static_cast<uint64_t>(epoch_), params_key);
  // The window is known before decoding too, unless the mask may move it:
  // a JPEG photo may then be decoded there only, to the same pixels.
  const auto window = [&](int photo_width, int photo_height, decode::DctScale scale) {
    const augment::PixelRect rect =
        augment::WarpImageFootprint(options_.augment, params, photo_width, photo_height,
                                    static_cast<double>(scale.num) / scale.denom,
                                    scale.Apply(photo_width), scale.Apply(photo_height));
    return std::optional(decode::ImageWindow{rect.x, rect.y, rect.width, rect.height});
  };
  Status status = worker.reader.Read(
      *source_, id,
      [&](int photo_width, int photo_height) {
        return DecodeTargetFor(options_.augment, params, photo_width, photo_height);
      },
      worker.augmenter.MayRedrawWindow() ? io::PairReader::DecodeWindow{}
                                         : io::PairReader::DecodeWindow{window});
  AddReadTimings(worker.reader.last_timings());
  input_bytes_ += static_cast<int64_t>(worker.reader.last_bytes_read());
  if (!status.ok()) return status;

  const decode::DecodedImage& image = worker.reader.image();
  const decode::MaskImage& mask = worker.reader.mask();
  augment::WarpSource source;
  if (image.layout == decode::DecodedImage::Layout::kYCbCrPlanes) {
    source.image = {image.pixels.data(), image.width, image.height, 1,
                    ptrdiff_t{image.luma_stride}};
    if (image.chroma_width > 0) {
      for (int plane = 0; plane < 2; ++plane)
        source.chroma[plane] = {image.ChromaPlane(plane), image.chroma_width, image.chroma_height,
                                1, ptrdiff_t{image.chroma_width}};
    }
    source.chroma_step_x = image.chroma_step_x;
    source.chroma_step_y = image.chroma_step_y;
  } else {
    source.image = {image.pixels.data(), image.width, image.height, 3, ptrdiff_t{image.width} * 3};
  }
  source.mask = {mask.pixels.data(), mask.width, mask.height, 1, ptrdiff_t{mask.width}};
  const decode::DctScale scale = worker.reader.image_scale();
  source.image_scale = static_cast<double>(scale.num) / scale.denom;
  // The window's redraws (crop_max_class_ratio) count the classes of up to
  // ten windows of the mask (warping the turned ones): warp time.
  const StageClock::time_point choosing = StageClock::now();
  worker.augmenter.ChooseWindow(source, &params, [&](int attempt, AugmentParams* redrawn) {
    RedrawCrop(options_.seed, static_cast<uint64_t>(epoch_), params_key, attempt, redrawn);
  });
  warp_ns_ += NanosBetween(choosing, StageClock::now());
  SetAppliedGeometry(options_.augment, mask.width, mask.height, &params);
  const augment::OutputConverter& converter = worker.augmenter.converter();
  worker.augmenter.Run(
      params, source,
      converter.DenseImage(buffers_->ImageSlot(task.buffer, task.slot), output_width,
                           output_height),
      converter.DenseMask(buffers_->MaskSlot(task.buffer, task.slot), output_width));
  const augment::SampleAugmenter::Timings& augment = worker.augmenter.last_timings();
  warp_ns_ += augment.warp_ns;
  jitter_ns_ += augment.jitter_ns;
  convert_ns_ += augment.convert_ns;
  memory::BatchMeta& meta = buffers_->meta[task.buffer];
  meta.sample_ids[task.slot] = id;
  meta.params[task.slot] = params;
  return {};
}

void SampleLoader::RecordBadPair(uint32_t id, const Error& error) {
  MutexLock lock(&skipped_mu_);
  bad_pairs_.emplace(id, error);
  if (skipped_paths_.insert(error.path).second) skipped_files_.push_back(error);
  // Last: a slot that sees the flag finds the error above.
  if (!known_bad_[id].exchange(true)) ++known_bad_count_;
}

std::vector<std::pair<uint32_t, ErrorKind>> SampleLoader::KnownBad() const {
  std::vector<std::pair<uint32_t, ErrorKind>> known;
  {
    MutexLock lock(&skipped_mu_);
    for (const auto& [id, error] : bad_pairs_) known.emplace_back(id, error.kind);
  }
  std::sort(known.begin(), known.end());
  return known;
}

void SampleLoader::MarkKnownBad(uint32_t id, const Error& error) { RecordBadPair(id, error); }

Error SampleLoader::GiveUpError(uint32_t id, int draws) const {
  Error error;
  {
    MutexLock lock(&skipped_mu_);
    error = bad_pairs_.at(id);
  }
  error.detail += "; stopping: " + std::to_string(draws) +
                  " draws found no good pair to fill a batch slot, and " +
                  std::to_string(known_bad_count_.load()) + " of " +
                  std::to_string(source_->sample_count()) +
                  " pairs are bad so far: run `segfeed check` on the dataset";
  return error;
}

void SampleLoader::AddReadTimings(const io::PairReader::Timings& read) {
  read_ns_ += read.read_ns;
  // A member no decoder saw (unreadable, or refused on its first bytes)
  // has no decode time worth a stage: it was the read's error.
  if (read.image_format == decode::SniffedFormat::kJpeg)
    (read.image_windowed ? photo_jpeg_window_decode_ns_ : photo_jpeg_decode_ns_) +=
        read.image_decode_ns;
  if (read.image_format == decode::SniffedFormat::kPng)
    photo_png_decode_ns_ += read.image_decode_ns;
  if (read.mask_format == decode::SniffedFormat::kPng) mask_png_decode_ns_ += read.mask_decode_ns;
  if (read.mask_format == decode::SniffedFormat::kGif) mask_gif_decode_ns_ += read.mask_decode_ns;
}

void SampleLoader::AddStats(LoaderStats* stats) const {
  for (const auto& worker : workers_) {
    stats->scratch_bytes += worker->scratch_bytes.load();
    stats->read_buffer_bytes += worker->read_buffer_bytes.load();
    stats->peak_scratch_bytes += worker->peak_scratch_bytes.load();
    stats->peak_read_buffer_bytes += worker->peak_read_buffer_bytes.load();
  }
  stats->samples_loaded = samples_loaded_.load();
  stats->samples_skipped = samples_skipped_.load();
  stats->samples_replaced = samples_replaced_.load();
  stats->input_bytes = input_bytes_.load();
  {
    MutexLock lock(&skipped_mu_);
    stats->skipped_files = skipped_files_;
  }
  stats->stage_seconds.read = read_ns_.load() * 1e-9;
  stats->stage_seconds.decode_photo_jpeg = photo_jpeg_decode_ns_.load() * 1e-9;
  stats->stage_seconds.decode_photo_jpeg_roi = photo_jpeg_window_decode_ns_.load() * 1e-9;
  stats->stage_seconds.decode_photo_png = photo_png_decode_ns_.load() * 1e-9;
  stats->stage_seconds.decode_mask_png = mask_png_decode_ns_.load() * 1e-9;
  stats->stage_seconds.decode_mask_gif = mask_gif_decode_ns_.load() * 1e-9;
  stats->stage_seconds.warp = warp_ns_.load() * 1e-9;
  stats->stage_seconds.jitter = jitter_ns_.load() * 1e-9;
  stats->stage_seconds.convert = convert_ns_.load() * 1e-9;
}

}  // namespace segfeed::pipeline
