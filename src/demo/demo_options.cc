// What a demo dataset may be asked for, checked once for every front end
// (make-demo, bench's default dataset, the tests' fixtures).

#include <cstdint>
#include <string>
#include <string_view>

#include "demo/demo_scene.h"
#include "segfeed/errors.h"

namespace segfeed::demo {
namespace {

[[noreturn]] void Refuse(std::string_view field, std::string_view requirement, int64_t got) {
  throw ConfigError(std::string(field) + " must be " + std::string(requirement) + " (got " +
                    std::to_string(got) + ")");
}

}  // namespace

void ValidateDemoOptions(const DemoOptions& options) {
  // One class would be a label map without a background to tell it from.
  if (options.classes != 0 && (options.classes < 2 || options.classes > kDemoMaxClasses))
    Refuse("classes", "0 (binary masks) or in [2, " + std::to_string(kDemoMaxClasses) + "]",
           options.classes);
  if (options.quality < 1 || options.quality > 100)
    Refuse("quality", "in [1, 100]", options.quality);
  if (options.count < 0) Refuse("count", ">= 0", options.count);
  if (options.width < 1) Refuse("width", ">= 1", options.width);
  if (options.height < 1) Refuse("height", ">= 1", options.height);
  if (options.threads < 0) Refuse("threads", ">= 0", options.threads);
}

}  // namespace segfeed::demo
