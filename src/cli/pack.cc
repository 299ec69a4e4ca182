// segfeed pack: a dataset written as tar shards (docs/shards.md).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/command_line.h"
#include "cli/loader_flags.h"
#include "cli/output_flags.h"
#include "cli/subcommands.h"
#include "options/byte_count.h"
#include "output/printable.h"
#include "pack/dataset_packer.h"
#include "pack/photo_reencode.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp = R"(usage: segfeed pack DATASET --output OUT [options]
DATASET: --data ROOT [--dataset PRESET [--split S]] (PRESET: carvana, voc,
         cityscapes, ade20k, camvid, camvid32, coco_stuff, mapillary,
         mapillary_v2, bdd100k or loveda),
         --images DIR --masks DIR [--recursive], or --list FILE

Writes the dataset as tar shards in WebDataset's layout, OUT/<name>-000000.tar,
-000001.tar, ..., each cut at --shard-size bytes or --samples-per-shard
samples, in the listing's order. A sample's members are <key>.<photo
extension> and <key>.mask.<mask extension> with the files' bytes unchanged,
and <key>.json (the key and the source paths and sizes). A nested key
(aachen/aachen_000000_000019) becomes a member path; a dot or '%' in the
key's last component is written %2E or %25 (WebDataset cuts a name at its
first dot), the original key kept in the .json and the index. Beside the
shards: OUT/index.sfidx, segfeed's index, which also records the mask
options (mask_mode, num_classes, label_map, class_names, ...) so a loader
needs none, and OUT/<name>-000000.idx, ..., DALI's per-shard index
(wds2idx v1.2).

Every pair is first checked as `segfeed check` checks it (read and decoded
at 1/8 scale): under --on-error skip a bad pair is left out and listed at
the end, under fail the first one stops the run. --threads checks in
parallel; the shards are the same bytes for any thread count, and for the
same dataset and options on any machine (fixed owners, mode and times in
the tar headers). Each shard is written to a temporary name and renamed
when whole; the index comes last, so a run that fails leaves no half
shard and no index. OUT may not be inside the dataset's folders, nor hold
shards of the same name or an index, unless --force (which replaces them).

--photo-codec jpeg re-encodes PNG photos as JPEG at --photo-quality (lossy,
never the default; masks are always kept as they are): it prints each
shard's PSNR against the original photos and records the codec in the index.

Exit status: 0 when every pair was packed, 1 when pairs were left out or
the run failed, 2 for a usage error.
)";

// "256MiB", "1GB", "4096": bytes.
int64_t ParseByteSize(const std::string& text) {
  const std::optional<int64_t> bytes = options::ParseByteCount(text);
  if (!bytes)
    throw UsageError("--shard-size must be a size such as 256MiB, 1GB or 4096 (got '" + text +
                     "')");
  if (*bytes < 4096)
    throw UsageError("--shard-size must be at least 4096 bytes (got " + text + ")");
  return *bytes;
}

std::string PsnrText(const pack::PackedShard& shard) {
  const double psnr = pack::PsnrDecibels(shard.photo_squared_error, shard.photo_error_samples);
  char text[64];
  std::snprintf(text, sizeof text, std::isinf(psnr) ? "lossless" : "PSNR %.2f dB", psnr);
  return text;
}

void PrintShard(const pack::PackedShard& shard, pack::PhotoCodec codec) {
  std::printf("shard %s: %lld samples, %lld bytes",
              output::PrintableText(shard.path.filename().string()).c_str(),
              static_cast<long long>(shard.samples), static_cast<long long>(shard.bytes));
  if (codec == pack::PhotoCodec::kJpeg) {
    std::printf(", %lld photos re-encoded as JPEG%s%s",
                static_cast<long long>(shard.reencoded_photos),
                shard.reencoded_photos > 0 ? ", " : "",
                shard.reencoded_photos > 0 ? PsnrText(shard).c_str() : "");
  }
  std::printf("\n");
  if (shard.no_dali_index)
    std::printf("no DALI index: %s\n",
                output::PrintableText(shard.no_dali_index->Message()).c_str());
  std::fflush(stdout);
}

}  // namespace

int RunPack(std::span<const std::string> args) {
  CommandLine cli("pack", kHelp);
  pack::PackOptions options;
  std::optional<std::string> output, shard_size, name;
  bool force = false;
  cli.AddText("--output", "OUT", &output, "the folder to write the shards into (required)");
  cli.AddText("--shard-size", "BYTES", &shard_size,
              "a shard's target size: 256MiB, 1GB, 4096 (default 256MiB)");
  cli.AddInt("--samples-per-shard", &options.limits.samples_per_shard, 0, INT32_MAX,
             "samples per shard instead of a size, 0 = by --shard-size");
  cli.AddText("--name", "NAME", &name, "the shards' name: NAME-000000.tar (default train)");
  cli.AddInt("--threads", &options.threads, 0, 1024, "checking threads, 0 = one per core");
  cli.AddChoice("--on-error", &options.on_bad_pair,
                {{"skip", pack::OnBadPair::kSkip}, {"fail", pack::OnBadPair::kFail}},
                "a bad pair: left out and listed, or the end of the run", "skip");
  cli.AddChoice("--photo-codec", &options.photo_codec,
                {{"keep", pack::PhotoCodec::kKeep}, {"jpeg", pack::PhotoCodec::kJpeg}},
                "photos as they are, or PNG photos re-encoded as JPEG (lossy)", "keep");
  cli.AddInt("--photo-quality", &options.photo_quality, 1, 100,
             "the JPEG quality of --photo-codec jpeg");
  cli.AddFlag("--force", &force, "replace the shards and index already in OUT");
  const DatasetFlags dataset(cli);
  const MaskFlags mask_flags(cli);
  if (!cli.Parse(args)) return 0;
  if (!output) throw UsageError("--output OUT is required");
  const DatasetSpec spec = dataset.Spec();
  // Pack reads files; shards it would list as no pairs and pack nothing.
  if (!spec.shards.empty() || !spec.shard_index.empty())
    throw UsageError(
        "the dataset is already tar shards; pack reads folders, presets and list files");
  options.decode = mask_flags.Apply(options.decode, spec);
  if (shard_size) options.limits.shard_bytes = ParseByteSize(*shard_size);
  if (name) options.name = *name;
  if (options.name.empty() || options.name.find('/') != std::string::npos)
    throw UsageError("--name must be a file name without '/' (got '" + options.name + "')");
  options.output = *OutputFolderFromFlag(output, "--output", dataset);
  if (const auto existing = pack::ExistingShardFiles(options.output, options.name);
      !existing.empty() && !force) {
    throw UsageError("--output '" + *output + "' already holds " +
                     existing.front().filename().string() +
                     " (and maybe more); --force replaces them");
  }

  // A progress line only for a person watching; logs stay clean.
  bool progress_shown = false;  // a progress line is on the terminal, unfinished
  if (isatty(STDERR_FILENO) != 0) {
    options.progress = [&progress_shown](int64_t done, int64_t total, int64_t bytes) {
      if (done % 16 != 0 && done != total) return;
      std::fprintf(stderr, "\rpack: %lld/%lld pairs, %.1f MB in finished shards",
                   static_cast<long long>(done), static_cast<long long>(total),
                   static_cast<double>(bytes) / 1e6);
      progress_shown = true;
    };
  }
  options.on_shard = [&](const pack::PackedShard& shard) {
    if (progress_shown) std::fprintf(stderr, "\n");
    progress_shown = false;
    PrintShard(shard, options.photo_codec);
  };
  const auto start = std::chrono::steady_clock::now();
  const pack::PackReport report = pack::PackDataset(spec, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress_shown) std::fprintf(stderr, "\n");

  for (const Error& left_out : report.left_out)
    std::printf("left out: %s\n", output::PrintableText(left_out.Message()).c_str());
  if (report.failure) {
    std::printf("error: %s\n", output::PrintableText(report.failure->Message()).c_str());
    std::printf("stopped: %lld pairs in %zu whole shards, no index written\n",
                static_cast<long long>(report.pairs_packed), report.shards.size());
    return 1;
  }
  std::printf(
      "packed %lld of %lld pairs into %zu shards, %lld bytes, in %.2f s: %.1f MB/s; %zu left "
      "out; index %s\n",
      static_cast<long long>(report.pairs_packed), static_cast<long long>(report.pairs_listed),
      report.shards.size(), static_cast<long long>(report.shard_bytes), seconds,
      static_cast<double>(report.shard_bytes) / 1e6 / std::max(seconds, 1e-9),
      report.left_out.size(), output::PrintableText(report.index.string()).c_str());
  return report.left_out.empty() ? 0 : 1;
}

}  // namespace segfeed::cli
