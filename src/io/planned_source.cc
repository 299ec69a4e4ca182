#include "io/planned_source.h"

#include <algorithm>

#include "io/jpeg_decoder.h"

namespace segfeed::internal {

Result<PlannedSource> PlanSourceFromHeaders(const PairList& pairs, const DecodeOptions& decode) {
  if (pairs.empty()) return Error{ErrorKind::kIoError, "", "no image/mask pairs to plan for"};
  std::vector<PlannedSource> sizes;
  Error last_error;
  const size_t samples = std::min<size_t>(pairs.size(), kSampledPairs);
  for (size_t i = 0; i < samples; ++i) {
    // Evenly spread, the first pair included.
    const SamplePair pair = pairs[i * pairs.size() / samples];
    auto header = ReadJpegHeaderFile(pair.image_path, decode);
    if (header.ok()) {
      sizes.push_back({header.value().width, header.value().height, 0, pair.image_path.string()});
    } else {
      last_error = header.error();
    }
  }
  if (sizes.empty()) return last_error;
  const auto pixels = [](const PlannedSource& s) { return int64_t{s.width} * s.height; };
  std::nth_element(
      sizes.begin(), sizes.begin() + static_cast<long>(sizes.size() / 2), sizes.end(),
      [&](const PlannedSource& a, const PlannedSource& b) { return pixels(a) < pixels(b); });
  PlannedSource median = sizes[sizes.size() / 2];
  median.headers_read = static_cast<int>(sizes.size());
  return median;
}

}  // namespace segfeed::internal
