// segfeed plan: the memory the input stage will use for given options,
// known before anything runs (docs/design.md, "Memory model"), and optionally the
// simple estimate of the model's training memory beside it.
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command_line.h"
#include "cli/loader_flags.h"
#include "cli/model_memory.h"
#include "cli/output_flags.h"
#include "cli/report_json.h"
#include "cli/subcommands.h"
#include "decode/jpeg_decoder.h"
#include "io/dataset_source.h"
#include "io/planned_source.h"
#include "memory/cgroup_limit.h"
#include "output/printable.h"
#include "segfeed/augment.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp = R"(usage: segfeed plan (DATASET | --source-size WxH) [options]
DATASET: --data ROOT [--dataset NAME [--split S]], --images DIR --masks DIR, or --list FILE

Prints the memory the input stage will use with these options, before
anything runs. The pool and scratch figures are exactly what a Loader with
the same options allocates (PlanMemory(), which the Loader itself uses):

  pool        prefetch x one batch buffer (images + masks), pinned when possible
  scratch     threads x (decoded photo at its DCT scale + decoded mask +
              augment rasters), reused from sample to sample
  in flight   at most prefetch x batch samples
  gpu batch   one batch on the GPU after upload (images + masks)
  total       pool + scratch (the file list and the file read buffers, as
              large as the largest file, come on top)
  container   the container's memory limit (cgroup v1 or v2) and what the
              container already holds: a total above the room left is
              refused, as the Loader refuses it

The source size is the median of the JPEG headers of up to 9 pairs spread
over --data (only headers are read), or --source-size. Scratch is planned
for that size; a pair whose headers say it needs more than the decode budget
(--headroom times that) is refused as too_large, so the total is a ceiling.

--model-params N adds the simple float32 training estimate training guides
use: parameters 4N + gradients 4N + optimizer state (sgd with momentum 4N,
adam 8N) bytes, i.e. 12N or 16N. Activations are NOT included: they depend
on the architecture, batch and input size, and often dominate.
)";

// What plan's own flags ask for.
struct PlanFlags {
  std::optional<std::string> source_size;
  int64_t model_params = 0;
  bool has_model = false;
  Optimizer optimizer = Optimizer::kAdam;
  bool optimizer_given = false;
  std::optional<std::string> json;
};

double MiB(double bytes) { return bytes / (1024.0 * 1024.0); }

struct SourceSize {
  int width = 0;
  int height = 0;
  std::string from;       // where the size came from, for the report
  SourceFormats formats;  // PNG photos and masks change the decode scratch
};

// "WxH", both at least 1; anything else is a usage error naming the flag.
SourceSize ParseSourceSize(const std::string& text) {
  SourceSize size;
  const char* const end = text.data() + text.size();
  auto [after_width, width_error] = std::from_chars(text.data(), end, size.width);
  bool ok = width_error == std::errc() && after_width != end && *after_width == 'x';
  if (ok) {
    auto [after_height, height_error] = std::from_chars(after_width + 1, end, size.height);
    ok = height_error == std::errc() && after_height == end && size.width >= 1 && size.height >= 1;
  }
  if (!ok) throw UsageError("--source-size must be WxH with W, H >= 1 (got '" + text + "')");
  size.from = "--source-size";
  return size;
}

// Where the dataset's photos are, for messages: the images folder, or the
// shards' folder.
std::filesystem::path DatasetPlace(const DatasetSpec& spec) {
  return spec.image_dir.empty() ? spec.root : spec.image_dir;
}

// The typical photo size from JPEG or PNG headers, as the Loader plans it. An
// error names the file (or the folder when it has no pairs).
Result<SourceSize> ReadSourceSize(const DatasetSpec& spec, const Dataset& dataset,
                                  const DecodeOptions& decode) {
  auto source = io::PlanSourceFromHeaders(*io::DatasetSource(dataset), decode);
  if (!source.ok()) {
    Error error = source.error();
    if (error.path.empty()) error.path = DatasetPlace(spec).string();
    return error;
  }
  const io::PlannedSource& planned = source.value();
  return SourceSize{planned.width, planned.height,
                    "median of " + std::to_string(planned.headers_read) + " headers, e.g. " +
                        planned.example_path,
                    planned.formats};
}

// What plan reports: the memory plan for one source size, and the model's
// memory when --model-params is given.
struct PlanFigures {
  LoaderOptions options;
  SourceSize source;
  std::optional<size_t> pairs;  // with a dataset: its pairs, whose listing the plan counts
  MemoryPlan plan;
  decode::DctScale scale;
  size_t images_on_gpu = 0;
  size_t masks_on_gpu = 0;
  bool has_model = false;
  Optimizer optimizer = Optimizer::kAdam;
  ModelMemory model;
  int64_t gpu_total = 0;
  memory::CgroupMemoryLimit container;  // the limit the Loader checks the plan against
};

// --model-params and --optimizer, into `f`.
void ApplyModelFlags(const PlanFlags& flags, PlanFigures* f) {
  f->has_model = flags.has_model;
  if (flags.optimizer_given && !f->has_model)
    throw UsageError("--optimizer needs --model-params N");
  f->optimizer = flags.optimizer;
  f->model = EstimateModelMemory(flags.model_params, f->optimizer);
}

// The source size from --source-size, or read from the dataset's files
// (then the listing is counted too).
Status FindSource(const PlanFlags& flags, const DatasetFlags& dataset_flags, PlanFigures* f,
                  std::optional<Dataset>* dataset) {
  if (flags.source_size) {
    if (dataset_flags.given())
      throw UsageError(
          "--source-size cannot be combined with a dataset (--data, --images, --list)");
    f->source = ParseSourceSize(*flags.source_size);
    return {};
  }
  if (!dataset_flags.given())
    throw UsageError(
        "give a dataset (--data ROOT, --images DIR --masks DIR, --list FILE) or --source-size WxH");
  const DatasetSpec spec = dataset_flags.Spec();
  if (isatty(STDERR_FILENO)) {
    std::fprintf(stderr, "plan: reading %s\n",
                 output::PrintableText(DatasetPlace(spec).string()).c_str());
  }
  *dataset = ListDataset(spec, f->options.object_storage);
  auto read = ReadSourceSize(spec, **dataset, f->options.decode);
  if (!read.ok()) return read.error();
  f->source = read.value();
  f->pairs = (*dataset)->sample_count();
  return {};
}

void ComputeFigures(const std::optional<Dataset>& dataset, PlanFigures* f) {
  f->plan = PlanMemory(f->options, f->source.width, f->source.height, f->source.formats);
  if (dataset) AddListingToPlan(*dataset, &f->plan);
  // PNG photos have no DCT scaling: decoded at full size.
  const auto [target_width, target_height] =
      FinestDecodeTarget(f->options.augment, f->source.width, f->source.height);
  f->scale = f->source.formats.png_images
                 ? decode::DctScale{}
                 : decode::JpegDecoder(f->options.decode)
                       .ChooseScale(f->source.width, f->source.height, target_width, target_height);
  f->images_on_gpu = static_cast<size_t>(f->options.batch_size) * f->plan.image_bytes_per_sample;
  f->masks_on_gpu = static_cast<size_t>(f->options.batch_size) * f->plan.mask_bytes_per_sample;
  f->gpu_total = static_cast<int64_t>(f->plan.gpu_batch_bytes) + f->model.total_bytes;
  f->container = memory::ReadCgroupMemoryLimit();
}

void PrintPlan(const PlanFigures& f) {
  const int out_w = f.options.augment.output_width, out_h = f.options.augment.output_height;
  auto bytes = [](size_t n) { return static_cast<double>(n); };
  std::printf("segfeed plan: batch %d, %dx%d, images %s %s%s, masks %s, prefetch %d, threads %d\n",
              f.options.batch_size, out_w, out_h,
              std::string(ElementTypeName(f.options.output.image_dtype)).c_str(),
              std::string(LayoutName(f.options.output.layout)).c_str(),
              f.options.output.normalize ? " normalized" : "",
              std::string(ElementTypeName(f.options.output.mask_dtype)).c_str(),
              f.plan.pool_buffers, f.plan.threads);
  // With a random scale the samples decode at different DCT scales; the
  // plan is made for the finest, the largest scale's.
  const AugmentOptions& augment = f.options.augment;
  char finest[96] = "";
  if (augment.scale_enabled && !f.source.formats.png_images)
    std::snprintf(finest, sizeof finest, " (the finest a sample asks for: random scale up to %g)",
                  augment.scale_factor.max);
  std::printf("  source      %s%dx%d (%s), decoded at %d/%d scale: %dx%d%s\n",
              f.source.formats.png_images ? "PNG " : "", f.source.width, f.source.height,
              output::PrintableText(f.source.from).c_str(), f.scale.num, f.scale.denom,
              f.scale.Apply(f.source.width), f.scale.Apply(f.source.height), finest);
  std::printf("  pool        %12zu bytes %9.1f MiB   %d buffers x %.1f MiB (one batch each)\n",
              f.plan.pool_bytes, MiB(bytes(f.plan.pool_bytes)), f.plan.pool_buffers,
              MiB(bytes(f.plan.batch_bytes)));
  std::printf(
      "  scratch     %12zu bytes %9.1f MiB   %d threads x %.1f MiB for this source; at most %.1f "
      "MiB:\n",
      f.plan.scratch_bytes, MiB(bytes(f.plan.scratch_bytes)), f.plan.threads,
      MiB(bytes(f.plan.scratch_bytes_per_thread)), MiB(bytes(f.plan.scratch_ceiling_bytes)));
  std::printf(
      "                                            a decode budget of %.1f MiB per thread "
      "(headroom %g),\n"
      "                                            a larger pair is too_large\n",
      MiB(bytes(f.plan.decode_budget_bytes_per_thread)), f.options.decode.scratch_headroom);
  std::printf(
      "  read bufs   %12zu bytes %9.1f MiB   at most %d threads x 2 files x %.1f MiB "
      "(max_file_bytes)\n",
      f.plan.read_buffer_bytes, MiB(bytes(f.plan.read_buffer_bytes)), f.plan.threads,
      MiB(bytes(static_cast<size_t>(f.options.decode.max_file_bytes))));
  if (f.pairs) {
    std::printf("  listing     %12zu bytes %9.1f MiB   %zu pairs: names and per-pair state\n",
                f.plan.listing_bytes, MiB(bytes(f.plan.listing_bytes)), *f.pairs);
  }
  if (f.plan.read_ahead_bytes > 0) {
    std::printf("  read ahead  %12zu bytes %9.1f MiB   object storage: read_ahead_bytes\n",
                f.plan.read_ahead_bytes, MiB(bytes(f.plan.read_ahead_bytes)));
  }
  std::printf("  in flight   %12lld samples            at most prefetch x batch\n",
              static_cast<long long>(f.plan.in_flight_bound));
  std::printf("  gpu batch   %12zu bytes %9.1f MiB   images %.1f MiB + masks %.1f MiB\n",
              f.plan.gpu_batch_bytes, MiB(bytes(f.plan.gpu_batch_bytes)),
              MiB(bytes(f.images_on_gpu)), MiB(bytes(f.masks_on_gpu)));
  std::printf(
      "  total       %12zu bytes %9.1f MiB   host, at most: pool + scratch + read buffers + "
      "listing (+ read ahead)\n",
      f.plan.total_bytes, MiB(bytes(f.plan.total_bytes)));
  if (f.container.limited()) {
    std::printf(
        "  container   %12zu bytes %9.1f MiB   memory limit (cgroup v%d %s), %.1f MiB in use: "
        "%.1f MiB left\n",
        f.container.limit_bytes, MiB(bytes(f.container.limit_bytes)), f.container.cgroup_version,
        output::PrintableText(f.container.limit_file.string()).c_str(),
        MiB(bytes(f.container.in_use_bytes)), MiB(bytes(f.container.room_bytes())));
  } else {
    std::printf("  container   no memory limit\n");
  }
  if (f.has_model) {
    const std::string state = std::string(OptimizerName(f.optimizer)) + " state";
    std::printf(
        "  model       %12lld bytes %9.1f MiB   %lld float32 params: params %.1f + grads %.1f + %s "
        "%.1f MiB\n",
        static_cast<long long>(f.model.total_bytes), MiB(static_cast<double>(f.model.total_bytes)),
        static_cast<long long>(f.model.parameters),
        MiB(static_cast<double>(f.model.parameter_bytes)),
        MiB(static_cast<double>(f.model.gradient_bytes)), state.c_str(),
        MiB(static_cast<double>(f.model.optimizer_state_bytes)));
    std::printf(
        "  gpu total   %12lld bytes %9.1f MiB   gpu batch + model; activations not included\n",
        static_cast<long long>(f.gpu_total), MiB(static_cast<double>(f.gpu_total)));
  }
  std::fflush(stdout);
}

// The options and source planned for, then the plan under its field-list
// names (the keys of Loader.plan() in Python), then the model's memory.
std::string PlanJson(const PlanFigures& f) {
  Json json = Json::object();
  json["source_width"] = f.source.width;
  json["source_height"] = f.source.height;
  SetText(&json, "source", f.source.from);
  json["dct_scale_num"] = f.scale.num;
  json["dct_scale_denom"] = f.scale.denom;
  json["batch_size"] = f.options.batch_size;
  json["output_width"] = f.options.augment.output_width;
  json["output_height"] = f.options.augment.output_height;
  json["image_dtype"] = ElementTypeName(f.options.output.image_dtype);
  json["mask_dtype"] = ElementTypeName(f.options.output.mask_dtype);
  json["layout"] = LayoutName(f.options.output.layout);
  json["prefetch_batches"] = f.options.prefetch_batches;
  AddFields(&json, f.plan);
  // Like "model", only when there is one: no limit has no figures.
  if (f.container.limited()) {
    Json container = Json::object();
    container["cgroup_version"] = f.container.cgroup_version;
    container["limit_bytes"] = f.container.limit_bytes;
    container["in_use_bytes"] = f.container.in_use_bytes;
    container["room_bytes"] = f.container.room_bytes();
    SetText(&container, "limit_file", f.container.limit_file.string());
    json["container_memory_limit"] = std::move(container);
  }
  if (f.has_model) {
    json["model"] = {{"parameters", f.model.parameters},
                     {"optimizer", OptimizerName(f.optimizer)},
                     {"parameter_bytes", f.model.parameter_bytes},
                     {"gradient_bytes", f.model.gradient_bytes},
                     {"optimizer_state_bytes", f.model.optimizer_state_bytes},
                     {"total_bytes", f.model.total_bytes},
                     {"activations_included", false}};
    json["gpu_total_bytes"] = f.gpu_total;
  }
  return DumpJson(json);
}

}  // namespace

int RunPlan(std::span<const std::string> args) {
  CommandLine cli("plan", kHelp, output::kNamesHelp);
  PlanFlags flags;
  cli.AddText("--source-size", "WxH", &flags.source_size,
              "plan for photos of W x H pixels instead of reading --data");
  const CLI::Option* model_params =
      cli.AddInt("--model-params", &flags.model_params, 0, int64_t{1} << 50,
                 "parameters of the model being trained");
  const CLI::Option* optimizer = cli.AddChoice(
      "--optimizer", &flags.optimizer, {{"sgd", Optimizer::kSgd}, {"adam", Optimizer::kAdam}},
      "sgd (with momentum) or adam", "adam");
  cli.AddText("--json", "FILE", &flags.json,
              "also write the plan as JSON (replaced only once complete)");
  const DatasetFlags dataset_flags(cli);
  const LoaderFlags loader_flags(cli);
  if (!cli.Parse(args)) return 0;
  flags.has_model = model_params->count() > 0;
  flags.optimizer_given = optimizer->count() > 0;
  PlanFigures figures;
  figures.options =
      loader_flags.Options(dataset_flags.given() ? dataset_flags.Spec() : DatasetSpec{});
  ApplyModelFlags(flags, &figures);
  // Checked before anything is read, and never among the files being read.
  const std::optional<output::OutputFile> json_file =
      OutputFileFromFlag(flags.json, "--json", dataset_flags);
  std::optional<Dataset> dataset;
  if (Status found = FindSource(flags, dataset_flags, &figures, &dataset); !found.ok()) {
    std::cerr << "segfeed plan: " << output::PrintableText(found.error().Message()) << "\n";
    return 1;
  }
  ComputeFigures(dataset, &figures);
  PrintPlan(figures);
  try {
    CheckPlanFitsMachine(figures.plan);
  } catch (const ConfigError& e) {
    std::cerr << "segfeed plan: " << e.what() << "\n";
    return 1;
  }
  if (json_file) {
    if (Status written = json_file->Write(PlanJson(figures)); !written.ok())
      throw FileError(written.error());
  }
  return 0;
}

}  // namespace segfeed::cli
