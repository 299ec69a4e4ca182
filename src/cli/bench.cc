// segfeed bench: throughput, per-stage times and memory of the whole
// pipeline, optionally beside the decode bound and a naive OpenCV loop.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/bench_baselines.h"
#include "cli/command_line.h"
#include "cli/loader_flags.h"
#include "cli/output_flags.h"
#include "cli/report_json.h"
#include "cli/sample_log.h"
#include "cli/stage_table.h"
#include "cli/stop_signals.h"
#include "cli/subcommands.h"
#include "cli/transfer_report.h"
#include "demo/demo_cache.h"
#include "digest.h"
#include "io/dataset_source.h"
#include "output/printable.h"
#include "segfeed/loader.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp = R"(usage: segfeed bench [DATASET] [options]
DATASET: --data ROOT [--dataset NAME [--split S]], --images DIR --masks DIR, or --list FILE

Runs the whole pipeline (read, decode, augment, convert into pinned batch
buffers) for a few epochs with a consumer that does nothing, and reports
throughput, time per stage and memory. Without a dataset it uses the demo
dataset (made once with make-demo in the cache folder, then reused). Ends
with `loaded N pairs, skipped M, replaced R` over all epochs: samples loaded
from their own pair, samples whose pair was bad, replacement samples.

For soak tests: `--epochs 0` runs until `--duration` seconds have passed or
SIGINT/SIGTERM arrives (either one ends the run after the batch in hand,
with the full report; a second signal kills), and `--sample-digests FILE`
writes one JSON line per delivered sample (epoch, batch, slot, pair id, a
digest of its image and mask bytes, CLOCK_MONOTONIC nanoseconds), per
epoch start and end, and per newly skipped file, as the run goes.
)";

// What bench's own flags ask for.
struct BenchFlags {
  int epochs = 3;
  bool baseline = false;
  bool decode_only = false;
  bool digest = false;
  std::optional<std::string> json;
  int demo_count = demo::DemoOptions{}.count;
  int64_t duration_s = 0;  // 0: no time limit
  std::optional<std::string> sample_digests;
};

double Median(std::vector<double> values) {
  if (values.empty()) return 0;  // a run stopped before its first epoch
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double MiB(double bytes) { return bytes / (1024.0 * 1024.0); }

int64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

void DigestBatch(const Lease& lease, Digest* digest) {
  digest->Update(lease.images().data, lease.images().bytes());
  digest->Update(lease.masks().data, lease.masks().bytes());
  const auto ids = lease.sample_ids();
  digest->Update(ids.data(), ids.size_bytes());
}

// What one bench run measured, for the text report and the JSON.
struct BenchResult {
  std::string dataset_label;
  int epochs = 0;  // 0: until the deadline or a signal
  std::optional<std::chrono::steady_clock::time_point> deadline;
  SampleLog* sample_log = nullptr;
  bool stopped_early = false;  // by the deadline or a signal
  bool want_digest = false;
  Digest digest;
  std::vector<double> epoch_seconds;
  std::vector<int64_t> epoch_samples;  // delivered: an epoch that stopped early has fewer
  int64_t samples = 0;
  int64_t batches = 0;
  std::string failure;  // the FileError that stopped the run, if one did
  LoaderStats stats;
  // Over the epochs after the warm-up.
  double samples_per_s = 0;
  double batches_per_s = 0;
  double input_mb_per_s = 0;
  size_t timed_epochs = 0;
  std::optional<double> decode_only;  // --decode-only
  std::optional<double> baseline;     // --baseline; NAN when it failed (null in the JSON)
  std::optional<Error> baseline_error;
};

// The dataset --data names, or the demo dataset (made once, then reused).
Result<std::pair<DatasetSpec, std::string>> BenchDataset(const DatasetFlags& flags,
                                                         int demo_count) {
  if (flags.given()) {
    DatasetSpec spec = flags.Spec();
    std::string label = spec.name == "carvana"   ? spec.image_dir.string()
                        : spec.name == "shards"  ? DescribeDatasetRule(spec)
                        : spec.list_file.empty() ? spec.name + " " + spec.image_dir.string()
                                                 : spec.name + " " + spec.list_file.string();
    return std::pair{std::move(spec), std::move(label)};
  }
  demo::DemoOptions demo;
  demo.count = demo_count;
  auto dir = demo::EnsureDemoDataset(demo);
  if (!dir.ok()) return dir.error();
  return std::pair{DatasetSpec::Carvana(dir.value()), "demo dataset " + dir.value().string()};
}

void PrintBenchHeader(const LoaderFlags& flags, const LoaderOptions& options, const Loader& loader,
                      const std::string& dataset_label, int epochs) {
  const LoaderStats initial = loader.stats();
  std::printf("segfeed bench: %s (%zu pairs)\n", output::PrintableText(dataset_label).c_str(),
              loader.dataset().sample_count());
  // Once, as a count (the unpaired files are named below): a Cityscapes
  // tree has three other files beside every label map.
  if (const size_t ignored = loader.dataset().ignored_count; ignored > 0) {
    std::printf(
        "  listing: %zu other files ignored, not images or masks by the rule (segfeed "
        "check names them)\n",
        ignored);
  }
  std::printf(
      "  options: batch %d, %dx%d %s %s, threads %d, prefetch %d, epochs %s%s, augment %s\n",
      options.batch_size, options.augment.output_width, options.augment.output_height,
      std::string(ElementTypeName(options.output.image_dtype)).c_str(),
      std::string(LayoutName(options.output.layout)).c_str(), initial.threads,
      options.prefetch_batches, epochs == 0 ? "until stopped" : std::to_string(epochs).c_str(),
      epochs != 1 ? " (first is warm-up)" : "",
      flags.no_augment() ? "off" : (flags.no_color() ? "geometry only" : "on"));
  if (options.batch_size > loader.samples_per_epoch()) {
    // The pool is allocated (and pinned) for full batches the dataset never fills.
    std::printf(
        "  warning: a batch has room for %d samples but an epoch has %lld; %.1f MiB of the %.1f "
        "MiB pool "
        "are never filled: lower --batch\n",
        options.batch_size, static_cast<long long>(loader.samples_per_epoch()),
        MiB(static_cast<double>(initial.pool_bytes) *
            (1.0 - static_cast<double>(loader.samples_per_epoch()) / options.batch_size)),
        MiB(static_cast<double>(initial.pool_bytes)));
  }
  std::fflush(stdout);
}

// Whether the run should end now: the --duration deadline passed or a
// signal asked for it.
bool StopRequested(const BenchResult& result) {
  return StopSignalled() ||
         (result.deadline && std::chrono::steady_clock::now() >= *result.deadline);
}

// Streams the epochs, timing each; a FileError stops the run, and so do the
// deadline and a signal (after the batch in hand).
void RunEpochs(Loader& loader, BenchResult* result) {
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  for (int64_t epoch = 0;
       (result->epochs == 0 || epoch < result->epochs) && result->failure.empty(); ++epoch) {
    if (StopRequested(*result)) {
      result->stopped_early = true;
      break;
    }
    const auto start = std::chrono::steady_clock::now();
    const int64_t samples_before = result->samples;
    if (result->sample_log != nullptr) result->sample_log->EpochStart(epoch);
    loader.StartEpoch(epoch);
    try {
      while (std::optional<Lease> lease = loader.Next()) {
        if (result->want_digest) DigestBatch(*lease, &result->digest);
        if (result->sample_log != nullptr) {
          result->sample_log->NewSkips(loader.stats().skipped_files);
          result->sample_log->Batch(*lease);
        }
        result->samples += lease->size();
        ++result->batches;
        if (show_progress) {
          std::fprintf(stderr, "\repoch %lld: %lld batches", static_cast<long long>(epoch),
                       static_cast<long long>(result->batches));
        }
        if (StopRequested(*result)) {
          result->stopped_early = true;
          loader.AbandonEpoch();
          break;
        }
      }
    } catch (const FileError& e) {
      result->failure = e.what();
    }
    if (result->sample_log != nullptr) {
      result->sample_log->NewSkips(loader.stats().skipped_files);
      result->sample_log->EpochEnd(epoch, result->samples - samples_before);
    }
    result->epoch_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    result->epoch_samples.push_back(result->samples - samples_before);
    if (result->stopped_early) break;
  }
  if (show_progress) std::fprintf(stderr, "\n");
  result->stats = loader.stats();
}

// Throughput over the epochs after the warm-up: the first pays for page
// cache misses and the first touch of the scratch memory. Rates are of what
// was delivered, so an epoch cut short by a bad file counts as short; one
// that delivered nothing measured nothing, and with no such epoch the
// throughput is not measured (timed_epochs 0).
void ComputeRates(const Loader& loader, BenchResult* result) {
  const size_t first_timed = result->epoch_seconds.size() > 1 ? 1 : 0;
  std::vector<double> samples_per_s_by_epoch;
  for (size_t i = first_timed; i < result->epoch_seconds.size(); ++i) {
    if (result->epoch_samples[i] == 0) continue;
    samples_per_s_by_epoch.push_back(static_cast<double>(result->epoch_samples[i]) /
                                     result->epoch_seconds[i]);
  }
  result->timed_epochs = samples_per_s_by_epoch.size();
  if (result->timed_epochs == 0) return;
  result->samples_per_s = Median(samples_per_s_by_epoch);
  const double samples_per_batch =
      static_cast<double>(loader.samples_per_epoch()) / loader.batches_per_epoch();
  result->batches_per_s = result->samples_per_s / samples_per_batch;
  const double input_bytes_per_sample =
      result->samples > 0
          ? static_cast<double>(result->stats.input_bytes) / static_cast<double>(result->samples)
          : 0.0;
  result->input_mb_per_s = input_bytes_per_sample * result->samples_per_s / 1e6;
}

void PrintRatesAndMemory(const Loader& loader, const BenchResult& result) {
  const LoaderStats& stats = result.stats;
  if (result.timed_epochs == 0) {
    std::printf(
        "  throughput: not measured: no timed epoch delivered a batch (the run stopped after %lld "
        "batches; the pairs loaded for the batch it stopped in count as loaded below)\n",
        static_cast<long long>(result.batches));
  } else {
    std::printf(
        "  throughput: %.1f samples/s, %.2f batches/s, %.1f MB/s input (median of %zu epoch%s)\n",
        result.samples_per_s, result.batches_per_s, result.input_mb_per_s, result.timed_epochs,
        result.timed_epochs == 1 ? "" : "s");
  }
  std::fputs(StageTable(stats.stage_seconds).c_str(), stdout);
  std::fputs(
      TransferReport(stats,
                     std::accumulate(result.epoch_seconds.begin(), result.epoch_seconds.end(), 0.0),
                     loader.plan().read_ahead_bytes)
          .c_str(),
      stdout);
  std::printf(
      "  memory: pool %d x %.1f MiB %s (%.1f MiB)%s, scratch %.1f MiB (peak %.1f), read buffers "
      "%.1f MiB "
      "(peak %.1f), max in flight %d of %d samples, peak RSS %.1f MiB (plan: at most %.1f MiB + "
      "libraries)\n",
      stats.pool_buffers, MiB(static_cast<double>(stats.pool_bytes) / stats.pool_buffers),
      std::string(PoolKindName(stats.pool_kind)).c_str(),
      MiB(static_cast<double>(stats.pool_bytes)),
      stats.pool_fallback_reason.empty() ? "" : (" [" + stats.pool_fallback_reason + "]").c_str(),
      MiB(static_cast<double>(stats.scratch_bytes)),
      MiB(static_cast<double>(stats.peak_scratch_bytes)),
      MiB(static_cast<double>(stats.read_buffer_bytes)),
      MiB(static_cast<double>(stats.peak_read_buffer_bytes)), stats.peak_in_flight,
      stats.in_flight_bound, MiB(static_cast<double>(PeakRssBytes())),
      MiB(static_cast<double>(loader.plan().total_bytes)));
}

// --decode-only and --baseline: the same pairs through the decoders alone,
// and through a naive OpenCV loop.
void RunComparisons(const BenchFlags& flags, const Loader& loader, const LoaderOptions& options,
                    BenchResult* result) {
  if (flags.decode_only) {
    const double decode_only = DecodeOnlyPairsPerSecond(*io::DatasetSource(loader.dataset()),
                                                        options, result->stats.threads);
    result->decode_only = decode_only;
    std::printf("  decode-only: %.1f pairs/s on %d threads", decode_only, result->stats.threads);
    if (result->timed_epochs > 0) {
      std::printf("; segfeed runs at %.2f of the decode bound",
                  result->samples_per_s / decode_only);
    }
    std::printf("\n");
  }
  if (flags.baseline) {
    const Result<double> measured =
        NaiveBaselinePairsPerSecond(*io::DatasetSource(loader.dataset()), options, 40);
    if (measured.ok()) {
      result->baseline = measured.value();
      std::printf("  baseline (naive OpenCV loop, 1 thread): %.1f pairs/s", measured.value());
      if (result->timed_epochs > 0) {
        std::printf("; segfeed is %.1fx faster", result->samples_per_s / measured.value());
      }
      std::printf("\n");
    } else {
      result->baseline = NAN;  // null in the JSON: no number rather than a wrong one
      result->baseline_error = measured.error();
      std::printf("  baseline: %s\n",
                  output::PrintableText(result->baseline_error->Message()).c_str());
    }
  }
}

void PrintOutcome(const BenchResult& result) {
  const LoaderStats& stats = result.stats;
  if (result.want_digest) std::printf("digest %s\n", result.digest.Hex().c_str());
  // Names are escaped: one file is one line, and nothing reaches the terminal raw.
  for (const Error& unpaired : stats.unpaired_files) {
    std::printf("  unpaired %s\n", output::PrintableText(unpaired.Message()).c_str());
  }
  for (const Error& skipped : stats.skipped_files) {
    std::printf("  skipped %s\n", output::PrintableText(skipped.Message()).c_str());
  }
  if (!result.failure.empty())
    std::printf("  stopped: %s\n", output::PrintableText(result.failure).c_str());
  if (result.stopped_early) {
    std::printf("  ended early (%s) after %zu epochs, %lld batches\n",
                StopSignalled() ? "signal" : "--duration", result.epoch_seconds.size(),
                static_cast<long long>(result.batches));
  }
  std::printf("loaded %lld pairs, skipped %lld, replaced %lld\n",
              static_cast<long long>(stats.samples_loaded),
              static_cast<long long>(stats.samples_skipped),
              static_cast<long long>(stats.samples_replaced));
}

// The bench's own figures, then the loader's stats under their field-list
// names (the keys of Loader.stats() in Python), then what only some runs have.
std::string BenchJson(const Loader& loader, const LoaderOptions& options,
                      const BenchResult& result) {
  Json json = Json::object();
  SetText(&json, "dataset", result.dataset_label);
  json["pairs"] = loader.dataset().sample_count();
  // The epochs run, which --epochs 0, a deadline, a signal or a bad file make
  // differ from the number asked for.
  json["epochs"] = result.epoch_seconds.size();
  json["stopped_early"] = result.stopped_early;
  json["batch_size"] = options.batch_size;
  // No number rather than a wrong one when no timed epoch delivered a batch.
  const bool measured = result.timed_epochs > 0;
  json["samples_per_s"] = measured ? Json(result.samples_per_s) : Json(nullptr);
  json["batches_per_s"] = measured ? Json(result.batches_per_s) : Json(nullptr);
  json["input_mb_per_s"] = measured ? Json(result.input_mb_per_s) : Json(nullptr);
  json["epoch_seconds"] = result.epoch_seconds;
  json["peak_rss_bytes"] = PeakRssBytes();
  json["plan_total_bytes"] = loader.plan().total_bytes;
  AddFields(&json, result.stats);
  if (result.decode_only) json["decode_only_samples_per_s"] = *result.decode_only;
  if (result.baseline) json["baseline_samples_per_s"] = *result.baseline;
  if (result.baseline_error) SetText(&json, "baseline_error", result.baseline_error->Message());
  if (result.want_digest) json["digest"] = result.digest.Hex();
  if (!result.failure.empty()) SetText(&json, "error", result.failure);
  return DumpJson(json);
}

}  // namespace

int RunBench(std::span<const std::string> args) {
  CommandLine cli("bench", kHelp, output::kNamesHelp);
  BenchFlags flags;
  cli.AddInt("--epochs", &flags.epochs, 0, 1000000,
             "epochs to run; the first is a warm-up when N > 1; 0: until --duration passes or "
             "SIGINT/SIGTERM");
  cli.AddInt("--duration", &flags.duration_s, 0, 100000000,
             "stop after SECONDS (after the batch in hand); 0: no limit");
  cli.AddText("--sample-digests", "FILE", &flags.sample_digests,
              "write a JSON line per delivered sample (pair id, digest of its bytes, time), "
              "epoch start and end, and skipped file, as the run goes");
  cli.AddFlag("--baseline", &flags.baseline,
              "also time a naive single-thread OpenCV loop, same work");
  cli.AddFlag("--decode-only", &flags.decode_only,
              "also time read + decode alone on the same threads");
  cli.AddFlag("--digest", &flags.digest, "print a digest of every batch byte, in stream order");
  cli.AddText("--json", "FILE", &flags.json, "write the report as JSON");
  cli.AddInt("--demo-count", &flags.demo_count, 1, 1000000, "pairs in the demo dataset");
  const DatasetFlags dataset_flags(cli);
  const LoaderFlags loader_flags(cli);
  if (!cli.Parse(args)) return 0;
  if (flags.baseline && !NaiveBaselineBuilt()) {
    throw UsageError(
        "--baseline: this build has no naive OpenCV loop (it needs OpenCV's imgcodecs, which the "
        "wheel leaves out); build segfeed from source for it");
  }
  BenchResult result;
  result.epochs = flags.epochs;
  result.want_digest = flags.digest;
  // Parsed before the demo dataset is made: a typo should not cost minutes.
  const LoaderOptions options =
      loader_flags.Options(dataset_flags.given() ? dataset_flags.Spec() : DatasetSpec{});
  const std::optional<output::OutputFile> json_file =
      OutputFileFromFlag(flags.json, "--json", dataset_flags);
  // Checked like --json (never inside the dataset), then written as a stream.
  const std::optional<output::OutputFile> sample_digests_file =
      OutputFileFromFlag(flags.sample_digests, "--sample-digests", dataset_flags);
  auto dataset = BenchDataset(dataset_flags, flags.demo_count);
  if (!dataset.ok()) {
    std::cerr << "segfeed bench: " << output::PrintableText(dataset.error().Message()) << "\n";
    return 1;
  }
  result.dataset_label = dataset.value().second;
  Loader loader(dataset.value().first, options);
  std::optional<SampleLog> sample_log;
  if (sample_digests_file) {
    sample_log.emplace(sample_digests_file->path());
    result.sample_log = &*sample_log;
  }
  if (flags.duration_s > 0) {
    result.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(flags.duration_s);
  }
  InstallStopHandlers();
  PrintBenchHeader(loader_flags, options, loader, result.dataset_label, result.epochs);
  RunEpochs(loader, &result);
  ComputeRates(loader, &result);
  PrintRatesAndMemory(loader, result);
  RunComparisons(flags, loader, options, &result);
  PrintOutcome(result);
  if (json_file) {
    if (Status written = json_file->Write(BenchJson(loader, options, result)); !written.ok()) {
      throw FileError(written.error());
    }
  }
  return result.failure.empty() ? 0 : 1;
}

}  // namespace segfeed::cli
