// segfeed make-demo: writes a synthetic Carvana-like dataset.
#include <cstdio>
#include <iostream>
#include <string>

#include "tools/cli_args.h"
#include "tools/demo_dataset.h"
#include "tools/subcommands.h"

namespace segfeed::tools {
namespace {

constexpr const char* kHelp = R"(usage: segfeed make-demo OUT_DIR [options]

Writes a synthetic dataset in Carvana's layout: OUT_DIR/train/<stem>.jpg
(RGB photos of a car in a studio, JPEG 4:2:0) and
OUT_DIR/train_masks/<stem>_mask.gif (two-colour GIF, 1 = car). The files
depend only on the options: the same seed gives byte-identical files.

options:
  --count N        pairs to write (default 100)
  --seed S         random seed (default 0)
  --width W        image width in pixels (default 1918)
  --height H       image height in pixels (default 1280)
  --quality Q      JPEG quality 1-100 (default 90)
  --help           show this text
)";

}  // namespace

int RunMakeDemo(std::span<const std::string> args) {
  const CliArgs cli(args, {"--count", "--seed", "--width", "--height", "--quality"}, {"--help"});
  if (cli.Has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  if (cli.positionals().size() != 1) {
    throw UsageError(cli.positionals().empty() ? "missing OUT_DIR"
                                               : "unexpected argument '" + cli.positionals()[1] + "'");
  }
  DemoOptions options;
  options.count = static_cast<int>(cli.GetInt("--count", options.count, 1, 1000000));
  options.seed = static_cast<uint64_t>(cli.GetInt("--seed", 0, 0, INT64_MAX));
  // 16 px is the smallest size at which the car still has all its parts.
  options.width = static_cast<int>(cli.GetInt("--width", options.width, 16, 16384));
  options.height = static_cast<int>(cli.GetInt("--height", options.height, 16, 16384));
  options.quality = static_cast<int>(cli.GetInt("--quality", options.quality, 1, 100));
  const std::string out_dir = cli.positionals()[0];

  auto summary = WriteDemoDatasetWithProgress(out_dir, options);
  if (!summary.ok()) {
    std::cerr << "segfeed make-demo: " << summary.error().Message() << "\n";
    return 1;
  }
  const DemoSummary& s = summary.value();
  std::printf("wrote %d pairs to %s (train/, train_masks/): %dx%d, mean JPEG %.1f KB, mean GIF %.1f KB\n",
              s.pairs, out_dir.c_str(), options.width, options.height,
              static_cast<double>(s.jpeg_bytes) / s.pairs / 1000.0,
              static_cast<double>(s.gif_bytes) / s.pairs / 1000.0);
  return 0;
}

}  // namespace segfeed::tools
