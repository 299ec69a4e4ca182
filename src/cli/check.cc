// segfeed check: the dataset sanity checker, run before a long training job.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "check/dataset_checker.h"
#include "cli/check_html.h"
#include "cli/check_report.h"
#include "cli/command_line.h"
#include "cli/loader_flags.h"
#include "cli/object_storage_flags.h"
#include "cli/output_flags.h"
#include "cli/subcommands.h"
#include "output/printable.h"
#include "segfeed/build_info.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: segfeed check DATASET [options]
DATASET: --data ROOT [--dataset PRESET [--split S]] (PRESET: carvana, voc,
         cityscapes, ade20k, camvid, camvid32, coco_stuff, mapillary,
         mapillary_v2, bdd100k or loveda), a shard folder, index or tars,
         shards in object storage (s3://bucket/prefix/, https://host/path/:
         the object-storage flags below, credentials as the AWS tools take
         them), --images DIR --masks DIR [--recursive], or --list FILE

Reads and decodes every image and mask of a dataset, on all cores (every
bit of every JPEG through the entropy decoder, so a truncated or damaged
photo is found; at DCT scale 1/8 unless --stats exact), and lists every
problem as '<path>: <detail> [<kind>]', sorted by path. Kinds: missing_mask,
orphan_mask, missing_image (a list names a file that is not there),
duplicate_key (two files claim one key: a.jpg and a.JPG), outside_root (a list
names a file outside its root: absolute, .., a symlink that leads elsewhere;
--allow-outside-root lets it), corrupt_image, corrupt_mask, size_mismatch, non_binary_mask,
unsupported_format, too_large, empty_file, io_error, label_out_of_range (a
label map value that is no class nor mask_ignore_value) and suspicious_mask
(binary masks without any foreground pixel, on the mask folder; a palette
that may be inverted; a mask whose file holds two values or more that all
read as background, or all as foreground). non_binary_mask and
suspicious_mask state the binary rule in force (--mask-foreground).

Then a summary: the pairing rule and its counts (pairs, unpaired images,
orphan masks, ignored files), pairs, problems by kind, image and mask sizes, JPEG coding
(baseline/progressive, entropy coding, subsampling, colour space), the
per-channel mean of the images over ALL their pixels (for normalisation:
from the 8x8 block means, within about 0.1 of a level of the exact mean on
photos; with --stats exact, the exact mean and the std at full resolution,
at the cost of a full decode), the fraction of foreground pixels in
the masks (mean, min, max), their bit depths, the masks whose palette differs
from the most common one, and groups of byte-identical files (information,
not a problem). With --mask-mode labels --num-classes N, a class table: per
class its pixels, the masks containing it, its fraction of the labelled
pixels and two loss weights, inverse frequency (labelled / (N x pixels)) and
median frequency (SegNet's), 0 for an absent class; and the ignore pixels.
The output is the same for any thread count.

Memory is bounded per thread, as the loader's is: each thread holds at
most its decode budget (--headroom of the loader, 4, times what the
dataset's median photo needs at the checker's DCT scale, plus 64 KiB for
the decoders' fixed needs) and two read buffers of max_file_bytes (16 MiB).
A file whose header says decoding it needs more than the budget (a PNG of
a few bytes claiming 10000x10000 pixels) is too_large, refused before
anything is allocated for it, as the loader refuses it. The summary's
memory line gives the bound; --threads multiplies it.

A dataset without a single image/mask pair is not clean: check says what
it found in each folder (images, masks, ignored files by extension) and the
names it expects, <image folder>/<stem>.jpg with <mask folder>/<stem>_mask.gif.

With --report FILE, the same report as one HTML page that opens offline in
any browser (inline CSS and SVG, thumbnails as data URIs, no script): the
summary, the problems filterable by kind with thumbnails of the first 200
problems' pairs, 48 sample pairs (a seeded choice) with the preview's
overlay, charts of the classes, image sizes, foreground fractions and
channel means, the duplicates and the JPEG properties. Thumbnails are at
most 160 pixels a side.

Exit status: 0 when no problem was found, 1 when some were, when there was
no pair to check or when the report could not be written (standard output
included), 2 for a usage error.
)";

// A dataset folder named on the command line that does not exist is a
// mistake in the command, not a problem of the dataset. Shards given as
// tars, an index or a brace pattern are checked when they are listed.
void RequireFolders(const DatasetFlags& dataset) {
  for (const auto& [option, folder] : dataset.Folders()) {
    if (option == "--data" && IsShardData(folder)) continue;  // a tar, an index or a pattern
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
      throw UsageError(option + " '" + folder + "' is not a folder");
  }
}

// The command line as a person would type it again: arguments with
// anything but a few safe characters single-quoted.
std::string CommandText(std::span<const std::string> args) {
  std::string text = "segfeed check";
  for (const std::string& arg : args) {
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_=./,:+@") == std::string::npos;
    if (plain) {
      text += " " + arg;
      continue;
    }
    text += " '";
    for (char c : arg) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += "'";
  }
  return text;
}

}  // namespace

int RunCheck(std::span<const std::string> args) {
  CommandLine cli("check", kHelp, output::kNamesHelp);
  std::optional<std::string> json_path;
  check::CheckOptions options;
  cli.AddText("--json", "FILE", &json_path,
              "also write the report as JSON:\n"
              "{\"pairs\": N, \"problems\": [{\"path\", \"kind\", \"detail\"}], \"summary\": "
              "{...}}\nand \"error\" when there is no pair; \"duplicates_bytes_hex\" when a "
              "duplicate's name is not UTF-8 (see below). The folder must exist; FILE is replaced "
              "only once the report is complete, and may not be inside the dataset folders");
  std::optional<std::string> report_path;
  cli.AddText("--report", "FILE", &report_path,
              "also write the report as one self-contained HTML page (see above); like --json, "
              "the folder must exist and FILE is replaced only once the page is complete");
  cli.AddInt("--threads", &options.threads, 0, 1024, "decoding threads, 0 = one per core");
  cli.AddChoice("--stats", &options.statistics,
                {{"block", check::ChannelStatistics::kBlockMeans},
                 {"exact", check::ChannelStatistics::kExact}},
                "the photos' channel statistics: block = the mean of the 8x8 block means "
                "(JPEG decoded at DCT scale 1/8: every defect is still found, several times "
                "faster), no std; exact = mean and std over every pixel at full resolution",
                "block");
  cli.AddInt("--max-pixels", &options.decode.max_pixels, 1, INT64_MAX,
             "too_large limit on a header's width x height");
  const DatasetFlags dataset(cli);
  const MaskFlags mask_flags(cli);
  const ObjectStorageFlags object_storage_flags(cli);
  if (!cli.Parse(args)) return 0;
  const DatasetSpec spec = dataset.Spec();
  options.decode = mask_flags.Apply(options.decode, spec);
  options.object_storage = object_storage_flags.Options();
  RequireFolders(dataset);

  // Checked before the check, which may take an hour, so a bad path fails
  // now; written only when the report is complete.
  const std::optional<output::OutputFile> json = OutputFileFromFlag(json_path, "--json", dataset);
  const std::optional<output::OutputFile> html =
      OutputFileFromFlag(report_path, "--report", dataset);

  // A progress line only for a person watching; logs stay clean.
  if (isatty(STDERR_FILENO) != 0) {
    options.progress = [](int64_t done, int64_t total) {
      if (done % 16 == 0 || done == total) {
        std::fprintf(stderr, "\rcheck: %lld/%lld files", static_cast<long long>(done),
                     static_cast<long long>(total));
      }
    };
  }
  // The report's thumbnails read pairs from the check's own listing.
  Dataset listing;
  const check::CheckReport report = CheckDataset(spec, options, html ? &listing : nullptr);
  if (options.progress) std::fprintf(stderr, "\n");

  PrintCheckReport(report, spec);
  if (json) {
    if (Status written = json->Write(CheckReportJson(report, spec)); !written.ok()) {
      throw FileError(written.error());
    }
  }
  if (html) {
    const HtmlReportContext context{CommandText(args), GetBuildInfo().version, options.decode};
    if (Status written = html->Write(CheckReportHtml(report, spec, listing, context));
        !written.ok()) {
      throw FileError(written.error());
    }
  }
  return report.problems.empty() && report.pairs > 0 ? 0 : 1;
}

}  // namespace segfeed::cli
