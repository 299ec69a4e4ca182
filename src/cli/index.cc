// segfeed index: scans tar shards and writes their index (docs/shards.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/subcommands.h"
#include "output/printable.h"
#include "source/shard_index.h"
#include "source/shard_samples.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp = R"(usage: segfeed index SHARD... [options]

Scans tar shards in WebDataset's layout (members <key>.<extension>, a
sample a run of consecutive members with one key) and writes their index:
the shards' names, sizes and digests, and per sample its key, shard, and
each member's offset, size and digest. With it a loader reads each member
with one read at its offset, without scanning the shards again. Shards are
plain tars (ustar, GNU or PAX; not compressed), read in the order given,
which is the order of the samples. The index refuses to be used once a
shard changes; run this command again then.

A member is the photo when its extension (the name after the first dot of
its last path component) is one of --photo, the mask when it is one of
--mask; other members (.json, .cls, .txt) are counted and ignored. A sample
without a mask or photo is kept and listed as unpaired. Every problem names
the shard, the member and the reason.

Exit status: 0 when every shard was read to its end and no key repeats;
1 otherwise (the problems are listed; the index is written only with
--allow-errors, holding the samples that could be read); 2 for a usage
error.
)";

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    if (end > begin) items.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

void PrintAll(const char* label, const std::vector<Error>& errors) {
  for (const Error& error : errors)
    std::printf("%s: %s\n", label, output::PrintableText(error.Message()).c_str());
}

}  // namespace

int RunIndex(std::span<const std::string> args) {
  CommandLine cli("index", kHelp);
  CLI::Option* shards_option = cli.AddOption("SHARD", "the tar shards, in order", "index");
  shards_option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->expected(-1);
  std::optional<std::string> output, photo, mask;
  bool allow_errors = false;
  cli.AddText("--output", "FILE", &output,
              std::string("where to write the index (default: ") + source::kShardIndexFileName +
                  " beside the first shard)");
  source::MemberRoles roles;
  const auto joined = [](const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ",") + item;
    return text;
  };
  cli.AddText("--photo", "EXTS", &photo,
              "the photo's extensions, comma-separated (default " + joined(roles.photo) + ")");
  cli.AddText("--mask", "EXTS", &mask,
              "the mask's extensions, comma-separated (default " + joined(roles.mask) + ")");
  cli.AddFlag(
      "--allow-errors", &allow_errors,
      "write the index of what could be read even when a shard is damaged or a key repeats");
  if (!cli.Parse(args)) return 0;
  const std::vector<std::string>& shard_args = shards_option->results();
  if (shard_args.empty()) throw UsageError("no SHARD given");
  if (photo) roles.photo = SplitList(*photo);
  if (mask) roles.mask = SplitList(*mask);
  if (roles.photo.empty() || roles.mask.empty())
    throw UsageError("--photo and --mask need at least one extension each");

  const std::vector<std::filesystem::path> shards(shard_args.begin(), shard_args.end());
  const std::filesystem::path index =
      output ? std::filesystem::path(*output)
             : shards.front().parent_path() / source::kShardIndexFileName;
  const auto start = std::chrono::steady_clock::now();
  const source::ShardListing listing = source::ScanShards(shards, roles);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PrintAll("problem", listing.problems);
  PrintAll("error", listing.errors);
  int64_t shard_bytes = 0;
  for (const auto& shard : listing.catalog.shards()) shard_bytes += shard.bytes;
  std::printf(
      "scanned %zu shards (%.1f MB) in %.2f s: %zu samples, %lld extra members, %zu "
      "problems, %zu errors\n",
      shards.size(), static_cast<double>(shard_bytes) / 1e6, seconds,
      listing.catalog.sample_count(), static_cast<long long>(listing.extra_members),
      listing.problems.size(), listing.errors.size());
  if (!listing.errors.empty() && !allow_errors) {
    std::printf("no index written: the shards are not whole (--allow-errors writes it anyway)\n");
    return 1;
  }
  if (Status written = source::WriteShardIndex(listing.catalog, index); !written.ok()) {
    std::printf("error: %s\n", output::PrintableText(written.error().Message()).c_str());
    return 1;
  }
  const size_t samples = std::max<size_t>(listing.catalog.sample_count(), 1);
  std::printf("wrote %s: the catalog holds %.1f bytes per sample, keys included\n",
              output::PrintableText(index.string()).c_str(),
              static_cast<double>(listing.catalog.held_bytes()) / static_cast<double>(samples));
  return listing.errors.empty() ? 0 : 1;
}

}  // namespace segfeed::cli
