// segfeed plan: the memory the input stage will use for given options,
// known before anything runs (DESIGN.md, "Memory model"), and optionally the
// simple estimate of the model's training memory beside it.
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "io/jpeg_decoder.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"
#include "tools/cli_args.h"
#include "pipeline/planned_source.h"
#include "tools/json_writer.h"
#include "tools/loader_flags.h"
#include "tools/model_memory.h"
#include "tools/output_file.h"
#include "tools/printable.h"
#include "tools/subcommands.h"

namespace segfeed::tools {
namespace {

constexpr const char* kHelp = R"(usage: segfeed plan (--data DIR | --source-size WxH) [options]

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

The source size is the median of the JPEG headers of up to 9 pairs spread
over --data (only headers are read), or --source-size. Scratch is planned
for that size; a pair whose headers say it needs more than the decode budget
(--headroom times that) is refused as too_large, so the total is a ceiling.

--model-params N adds the simple float32 training estimate training guides
use: parameters 4N + gradients 4N + optimizer state (sgd with momentum 4N,
adam 8N) bytes, i.e. 12N or 16N. Activations are NOT included: they depend
on the architecture, batch and input size, and often dominate.

plan:
  --source-size WxH     plan for photos of W x H pixels instead of reading --data
  --model-params N      parameters of the model being trained
  --optimizer O         sgd (with momentum) or adam (adam)
  --json FILE           also write the plan as JSON (replaced only once complete)
  --help                show this text

)";

double MiB(double bytes) { return bytes / (1024.0 * 1024.0); }

struct SourceSize {
  int width = 0;
  int height = 0;
  std::string from;  // where the size came from, for the report
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

// The typical photo size from JPEG headers, as the Loader plans it. An
// error names the file (or the folder when it has no pairs).
internal::Result<SourceSize> ReadSourceSize(const DatasetSpec& spec, const Dataset& dataset,
                                            const DecodeOptions& decode) {
  auto source = internal::PlanSourceFromHeaders(dataset.pairs, decode);
  if (!source.ok()) {
    Error error = source.error();
    if (error.path.empty()) error.path = spec.image_dir.string();
    return error;
  }
  const internal::PlannedSource& planned = source.value();
  return SourceSize{planned.width, planned.height,
                    "median of " + std::to_string(planned.headers_read) + " headers, e.g. " + planned.example_path};
}

}  // namespace

int RunPlan(std::span<const std::string> args) {
  const CliArgs cli = ParseLoaderCommand(args, {"--source-size", "--model-params", "--optimizer", "--json"}, {});
  if (cli.Has("--help")) {
    std::cout << kHelp << kDatasetHelp << "\n" << kLoaderHelp << "\n" << kNamesHelp;
    return 0;
  }
  const LoaderOptions options = LoaderOptionsFromArgs(cli);
  CheckLoaderOptions(options);

  const bool has_model = cli.Has("--model-params");
  if (cli.Has("--optimizer") && !has_model) throw UsageError("--optimizer needs --model-params N");
  const int64_t model_params = cli.GetInt("--model-params", 0, 0, int64_t{1} << 50);
  Optimizer optimizer = Optimizer::kAdam;
  if (auto name = cli.Get("--optimizer")) {
    if (*name == "sgd") {
      optimizer = Optimizer::kSgd;
    } else if (*name != "adam") {
      throw UsageError("--optimizer must be one of sgd, adam (got '" + *name + "')");
    }
  }

  // Checked before anything is read, and never among the files being read.
  const std::optional<OutputFile> json_file = OutputFileFromArgs(cli, "--json");

  SourceSize source;
  std::optional<Dataset> dataset;
  if (cli.Has("--source-size")) {
    if (HasDataset(cli)) throw UsageError("--source-size cannot be combined with --data/--images/--masks");
    source = ParseSourceSize(*cli.Get("--source-size"));
  } else {
    if (!HasDataset(cli)) throw UsageError("give --data DIR (or --images/--masks) or --source-size WxH");
    const DatasetSpec spec = DatasetFromArgs(cli);
    if (isatty(STDERR_FILENO)) {
      std::fprintf(stderr, "plan: reading %s\n", PrintableText(spec.image_dir.string()).c_str());
    }
    dataset = ListDataset(spec);
    auto read = ReadSourceSize(spec, *dataset, options.decode);
    if (!read.ok()) {
      std::cerr << "segfeed plan: " << PrintableText(read.error().Message()) << "\n";
      return 1;
    }
    source = read.value();
  }

  MemoryPlan plan = PlanMemory(options, source.width, source.height);
  if (dataset) AddListingToPlan(*dataset, &plan);
  const int out_w = options.augment.output_width, out_h = options.augment.output_height;
  const internal::DctScale scale =
      internal::JpegDecoder(options.decode).ChooseScale(source.width, source.height, out_w, out_h);
  const size_t images_on_gpu = static_cast<size_t>(options.batch_size) * plan.image_bytes_per_sample;
  const size_t masks_on_gpu = static_cast<size_t>(options.batch_size) * plan.mask_bytes_per_sample;
  const ModelMemory model = EstimateModelMemory(model_params, optimizer);
  const int64_t gpu_total = static_cast<int64_t>(plan.gpu_batch_bytes) + model.total_bytes;
  auto bytes = [](size_t n) { return static_cast<double>(n); };

  std::printf("segfeed plan: batch %d, %dx%d, images %s %s%s, masks %s, prefetch %d, threads %d\n", options.batch_size,
              out_w, out_h, ImageDtypeName(options.output.image_dtype), LayoutName(options.output.layout),
              options.output.normalize ? " normalized" : "", MaskDtypeName(options.output.mask_dtype),
              plan.pool_buffers, plan.threads);
  std::printf("  source      %dx%d (%s), decoded at %d/%d scale: %dx%d\n", source.width, source.height,
              PrintableText(source.from).c_str(), scale.num, scale.denom, scale.Apply(source.width), scale.Apply(source.height));
  std::printf("  pool        %12zu bytes %9.1f MiB   %d buffers x %.1f MiB (one batch each)\n", plan.pool_bytes,
              MiB(bytes(plan.pool_bytes)), plan.pool_buffers, MiB(bytes(plan.batch_bytes)));
  std::printf("  scratch     %12zu bytes %9.1f MiB   %d threads x %.1f MiB for this source; at most %.1f MiB:\n",
              plan.scratch_bytes, MiB(bytes(plan.scratch_bytes)), plan.threads, MiB(bytes(plan.scratch_bytes_per_thread)),
              MiB(bytes(plan.scratch_ceiling_bytes)));
  std::printf("                                            a decode budget of %.1f MiB per thread (headroom %g),\n"
              "                                            a larger pair is too_large\n",
              MiB(bytes(plan.decode_budget_bytes_per_thread)), options.decode.scratch_headroom);
  std::printf("  read bufs   %12zu bytes %9.1f MiB   at most %d threads x 2 files x %.1f MiB (max_file_bytes)\n",
              plan.read_buffer_bytes, MiB(bytes(plan.read_buffer_bytes)), plan.threads,
              MiB(bytes(static_cast<size_t>(options.decode.max_file_bytes))));
  if (dataset) {
    std::printf("  listing     %12zu bytes %9.1f MiB   %zu pairs: names and per-pair state\n", plan.listing_bytes,
                MiB(bytes(plan.listing_bytes)), dataset->pairs.size());
  }
  std::printf("  in flight   %12lld samples            at most prefetch x batch\n",
              static_cast<long long>(plan.max_samples_in_flight));
  std::printf("  gpu batch   %12zu bytes %9.1f MiB   images %.1f MiB + masks %.1f MiB\n", plan.gpu_batch_bytes,
              MiB(bytes(plan.gpu_batch_bytes)), MiB(bytes(images_on_gpu)), MiB(bytes(masks_on_gpu)));
  std::printf("  total       %12zu bytes %9.1f MiB   host, at most: pool + scratch + read buffers + listing\n",
              plan.total_bytes, MiB(bytes(plan.total_bytes)));
  if (has_model) {
    const std::string state = std::string(OptimizerName(optimizer)) + " state";
    std::printf("  model       %12lld bytes %9.1f MiB   %lld float32 params: params %.1f + grads %.1f + %s %.1f MiB\n",
                static_cast<long long>(model.total_bytes), MiB(static_cast<double>(model.total_bytes)),
                static_cast<long long>(model.parameters), MiB(static_cast<double>(model.parameter_bytes)),
                MiB(static_cast<double>(model.gradient_bytes)), state.c_str(),
                MiB(static_cast<double>(model.optimizer_state_bytes)));
    std::printf("  gpu total   %12lld bytes %9.1f MiB   gpu batch + model; activations not included\n",
                static_cast<long long>(gpu_total), MiB(static_cast<double>(gpu_total)));
  }
  std::fflush(stdout);
  try {
    CheckPlanFitsMachine(plan);
  } catch (const ConfigError& e) {
    std::cerr << "segfeed plan: " << e.what() << "\n";
    return 1;
  }

  if (json_file) {
    JsonWriter json;
    json.BeginObject()
        .Integer("source_width", source.width)
        .Integer("source_height", source.height)
        .String("source", source.from)
        .Integer("dct_scale_num", scale.num)
        .Integer("dct_scale_denom", scale.denom)
        .Integer("batch_size", options.batch_size)
        .Integer("output_width", out_w)
        .Integer("output_height", out_h)
        .String("image_dtype", ImageDtypeName(options.output.image_dtype))
        .String("mask_dtype", MaskDtypeName(options.output.mask_dtype))
        .String("layout", LayoutName(options.output.layout))
        .Integer("prefetch_batches", options.prefetch_batches)
        .Integer("threads", plan.threads)
        .Integer("image_bytes_per_sample", static_cast<int64_t>(plan.image_bytes_per_sample))
        .Integer("mask_bytes_per_sample", static_cast<int64_t>(plan.mask_bytes_per_sample))
        .Integer("batch_bytes", static_cast<int64_t>(plan.batch_bytes))
        .Integer("pool_buffers", plan.pool_buffers)
        .Integer("pool_bytes", static_cast<int64_t>(plan.pool_bytes))
        .Integer("scratch_bytes_per_thread", static_cast<int64_t>(plan.scratch_bytes_per_thread))
        .Integer("scratch_bytes", static_cast<int64_t>(plan.scratch_bytes))
        .Integer("decode_budget_bytes_per_thread", static_cast<int64_t>(plan.decode_budget_bytes_per_thread))
        .Integer("scratch_ceiling_bytes", static_cast<int64_t>(plan.scratch_ceiling_bytes))
        .Integer("read_buffer_bytes", static_cast<int64_t>(plan.read_buffer_bytes))
        .Integer("listing_bytes", static_cast<int64_t>(plan.listing_bytes))
        .Integer("max_samples_in_flight", plan.max_samples_in_flight)
        .Integer("gpu_batch_bytes", static_cast<int64_t>(plan.gpu_batch_bytes))
        .Integer("total_bytes", static_cast<int64_t>(plan.total_bytes));
    if (has_model) {
      json.BeginObject("model")
          .Integer("parameters", model.parameters)
          .String("optimizer", OptimizerName(optimizer))
          .Integer("parameter_bytes", model.parameter_bytes)
          .Integer("gradient_bytes", model.gradient_bytes)
          .Integer("optimizer_state_bytes", model.optimizer_state_bytes)
          .Integer("total_bytes", model.total_bytes)
          .Bool("activations_included", false)
          .EndObject()
          .Integer("gpu_total_bytes", gpu_total);
    }
    json.EndObject();
    if (internal::Status written = json_file->Write(json.str() + "\n"); !written.ok()) throw FileError(written.error());
  }
  return 0;
}

}  // namespace segfeed::tools
