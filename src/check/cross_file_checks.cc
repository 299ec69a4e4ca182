#include "check/cross_file_checks.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <utility>

#include "check/check_statistics.h"

namespace segfeed::check {
namespace {

// Byte-by-byte comparison, streaming, so confirming a duplicate costs no
// memory beyond two small buffers. A file that cannot be read equals nothing.
bool SameBytes(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::ifstream in_a(a, std::ios::binary);
  std::ifstream in_b(b, std::ios::binary);
  if (!in_a || !in_b) return false;
  constexpr size_t kChunk = 64 * 1024;
  std::vector<char> buffer_a(kChunk), buffer_b(kChunk);
  for (;;) {
    in_a.read(buffer_a.data(), kChunk);
    in_b.read(buffer_b.data(), kChunk);
    const std::streamsize n = in_a.gcount();
    if (n != in_b.gcount()) return false;
    if (!std::equal(buffer_a.begin(), buffer_a.begin() + n, buffer_b.begin())) return false;
    if (n < static_cast<std::streamsize>(kChunk)) return in_a.eof() && in_b.eof();
  }
}

}  // namespace

std::optional<Error> PairSizeMismatch(const std::vector<FileJob>& jobs,
                                      const std::vector<FileOutcome>& outcomes, size_t i) {
  const FileJob& job = jobs[i];
  const FileOutcome& out = outcomes[i];
  // The pair's mask is the next job; compare full-resolution sizes.
  const FileOutcome* mask = job.pair >= 0 ? &outcomes[i + 1] : nullptr;
  if (mask && out.header_read && mask->header_read &&
      (out.width != mask->width || out.height != mask->height)) {
    return Error{ErrorKind::kSizeMismatch, job.path.string(),
                 "image is " + SizeText(out.width, out.height) + " but its mask " +
                     jobs[i + 1].path.string() + " is " + SizeText(mask->width, mask->height)};
  }
  return std::nullopt;
}

Error AllBackgroundMasks(const std::string& mask_dir, int64_t decoded_masks) {
  return Error{ErrorKind::kSuspiciousMask, mask_dir,
               "no mask has any foreground pixel: all " + std::to_string(decoded_masks) +
                   " masks that decoded are background only; check mask_foreground (nonzero or "
                   "luminance, mask_threshold) / mask_mode (label maps need mask_mode labels)"};
}

std::vector<std::vector<std::string>> FindDuplicates(const std::vector<FileJob>& jobs,
                                                     const std::vector<FileOutcome>& outcomes) {
  // Candidates share size and digest; each candidate group is then split
  // into classes of truly equal bytes (a digest collision is not a duplicate).
  std::vector<std::tuple<uint64_t, uint64_t, size_t>> keyed;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].size_bytes > 0)
      keyed.emplace_back(outcomes[i].size_bytes, outcomes[i].digest, i);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::vector<std::string>> groups;
  for (size_t begin = 0; begin < keyed.size();) {
    size_t end = begin + 1;
    while (end < keyed.size() && std::get<0>(keyed[end]) == std::get<0>(keyed[begin]) &&
           std::get<1>(keyed[end]) == std::get<1>(keyed[begin])) {
      ++end;
    }
    std::vector<std::vector<size_t>> classes;
    for (size_t k = begin; end - begin > 1 && k < end; ++k) {
      const size_t index = std::get<2>(keyed[k]);
      auto same =
          std::find_if(classes.begin(), classes.end(), [&](const std::vector<size_t>& members) {
            return SameBytes(jobs[members.front()].path, jobs[index].path);
          });
      if (same != classes.end()) {
        same->push_back(index);
      } else {
        classes.push_back({index});
      }
    }
    for (const std::vector<size_t>& members : classes) {
      if (members.size() < 2) continue;
      std::vector<std::string> paths;
      for (size_t index : members) paths.push_back(jobs[index].path.string());
      std::sort(paths.begin(), paths.end());
      groups.push_back(std::move(paths));
    }
    begin = end;
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

void FindOtherPalettes(const std::vector<FileJob>& jobs, const std::vector<FileOutcome>& outcomes,
                       CheckReport* report) {
  std::map<uint64_t, int64_t> masks_by_digest;
  for (const FileOutcome& out : outcomes) {
    if (out.decoded && out.palette_digest != 0) ++masks_by_digest[out.palette_digest];
  }
  if (masks_by_digest.size() < 2) return;
  const uint64_t common =
      std::max_element(masks_by_digest.begin(), masks_by_digest.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; })
          ->first;
  std::vector<std::string> paths;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const FileOutcome& out = outcomes[i];
    if (jobs[i].role == FileRole::kMask && out.decoded && out.palette_digest != 0 &&
        out.palette_digest != common) {
      paths.push_back(jobs[i].path.string());
    }
  }
  std::sort(paths.begin(), paths.end());
  report->other_palette_masks = static_cast<int64_t>(paths.size());
  if (paths.size() > kOtherPaletteListed) paths.resize(kOtherPaletteListed);
  report->other_palette_paths = std::move(paths);
}

}  // namespace segfeed::check
