// The dataset keywords of the front ends, and the DatasetSpec they mean.

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "segfeed/dataset.h"
#include "segfeed/errors.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;

constexpr std::array<DatasetOption, 14> kDatasetOptions = {{
    {"dataset", "dataset", "NAME",
     "the layout: carvana, voc, cityscapes, ade20k, camvid, camvid32, coco_stuff, mapillary, "
     "mapillary_v2, bdd100k, loveda (presets, under --data ROOT), folders (--images, --masks), "
     "list (--list) or shards (--data: a folder with index.sfidx, an index, tars or "
     "train-{000000..000031}.tar; the default for such data)"},
    {"split", "split", "NAME",
     "a preset's split: train, val, trainval (voc), test (cityscapes, camvid), train/urban and "
     "train/rural (loveda)"},
    {"images", "images", "DIR", "the folder of images (folders and list rules)"},
    {"masks", "masks", "DIR", "the folder of masks (folders and list rules)"},
    {"image_suffix", "image-suffix", "TEXT",
     "between an image's key and its extension (\"_leftImg8bit\"); default none"},
    {"mask_suffix", "mask-suffix", "TEXT",
     "between a mask's key and its extension; default \"_mask\", \"\" for none"},
    {"image_extensions", "image-ext", "EXT,...", "image extensions; default .jpg,.jpeg,.png"},
    {"mask_extensions", "mask-ext", "EXT,...", "mask extensions; default .gif,.png"},
    {"recursive", "recursive", "",
     "pair by sub-folder and key through the whole trees of images and masks"},
    {"list_file", "list", "FILE",
     "a list of keys (one per line, found in --images/--masks) or of image and mask paths (two "
     "columns), in its order"},
    {"root", "list-root", "DIR",
     "where a two-column list's relative paths start; default --data, else the list's folder"},
    {"allow_outside_root", "allow-outside-root", "",
     "let a two-column list name files outside its root (absolute paths, .., symlinks that lead "
     "elsewhere); else such a line is an outside_root problem"},
    {"shards", "shards", "TAR,...",
     "tar shards read in this order (Python: a list of paths; --data takes a folder with "
     "index.sfidx, an index or train-{000000..000031}.tar)"},
    {"endpoint_url", "endpoint-url", "URL",
     "object storage: the S3 endpoint of an s3:// dataset (http(s)://host[:port]: MinIO, Ceph, "
     "R2, a local server); default AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's "
     "endpoint_url, else AWS"},
}};

std::vector<std::string> Extensions(std::string_view name, std::string_view text) {
  std::vector<std::string> extensions;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view given = text.substr(begin, end - begin);
    // ".jpg" or "jpg": the dot is added when missing.
    std::string extension = !given.empty() && given[0] != '.' ? "." : "";
    extension.append(given);
    if (extension.size() < 2)
      throw ConfigError(std::string(name) + " must be extensions like .jpg,.png (got '" +
                        std::string(text) + "')");
    extensions.push_back(std::move(extension));
    begin = end + 1;
  }
  return extensions;
}

// "a,b,c" as its comma-separated parts (empty parts left out).
std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string_view::npos) end = text.size();
    if (end > begin) parts.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

bool Switch(std::string_view name, std::string_view text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw ConfigError(std::string(name) + " must be true or false (got '" + std::string(text) + "')");
}

}  // namespace

std::span<const DatasetOption> DatasetOptionTable() { return kDatasetOptions; }

std::string DescribeDatasetRule(const DatasetSpec& spec) {
  if (!spec.shard_index.empty())
    return "shards: the samples of the index " + spec.shard_index.string();
  if (!spec.shards.empty()) {
    return "shards: the samples of " + std::to_string(spec.shards.size()) + " tar" +
           (spec.shards.size() == 1 ? " " : "s from ") + spec.shards.front().string();
  }
  auto files = [](const fs::path& folder, bool recursive, const std::string& suffix,
                  const std::vector<std::string>& extensions) {
    std::string alternatives;
    for (const std::string& extension : extensions)
      alternatives += (alternatives.empty() ? "" : "|") + extension;
    if (extensions.size() > 1) alternatives = "{" + alternatives + "}";
    return (folder / (recursive ? "**/<key>" : "<key>")).string() + suffix + alternatives;
  };
  std::string pairing =
      files(spec.image_dir, spec.recursive, spec.image_suffix, spec.image_extensions) + " with " +
      files(spec.mask_dir, spec.recursive, spec.mask_suffix, spec.mask_extensions);
  for (const auto& [images, masks] : spec.more_folders) {
    pairing += ", then " + files(images, spec.recursive, spec.image_suffix, spec.image_extensions) +
               " with " + files(masks, spec.recursive, spec.mask_suffix, spec.mask_extensions);
  }
  // A spec filled in by hand keeps the default name.
  std::string rule = spec.name == "folders" && !spec.list_file.empty() ? "list" : spec.name;
  if (spec.list_file.empty()) {
    if (spec.recursive) rule += " (recursive)";
    return rule + ": " + pairing;
  }
  if (spec.image_dir.empty()) {
    const fs::path root = !spec.list_root.empty() ? spec.list_root
                          : !spec.root.empty()    ? spec.root
                                                  : spec.list_file.parent_path();
    return rule + ": the (image, mask) paths or the keys of " + spec.list_file.string() +
           ", paths under " + root.string();
  }
  return rule + ": the keys of " + spec.list_file.string() + ", " + pairing;
}

DatasetSpec DatasetFromValues(const fs::path& data,
                              std::span<const std::pair<std::string, std::string>> values) {
  std::map<std::string, std::string, std::less<>> given;
  for (const auto& value : values) {
    const std::string& name = value.first;
    const bool known =
        std::any_of(kDatasetOptions.begin(), kDatasetOptions.end(),
                    [&name](const DatasetOption& option) { return option.name == name; });
    if (!known) throw ConfigError("unknown dataset keyword '" + name + "'");
    given[name] = value.second;
  }
  auto has = [&given](std::string_view name) { return given.count(name) > 0; };
  auto get = [&given](std::string_view name) { return given.find(name)->second; };
  auto refuse_with = [&](std::string_view rule, std::initializer_list<std::string_view> names) {
    for (std::string_view name : names) {
      if (has(name))
        throw ConfigError(std::string(name) + " does not go with dataset " + std::string(rule) +
                          (rule == "folders" || rule == "list" || rule == "shards"
                               ? ""
                               : ": the preset sets its folders (use dataset folders or list "
                                 "for other ones)"));
    }
  };

  std::string rule = has("dataset")                  ? get("dataset")
                     : has("shards")                 ? "shards"
                     : has("list_file")              ? "list"
                     : has("images") || has("masks") ? "folders"
                     : IsShardData(data)             ? "shards"
                     : !data.empty()                 ? "carvana"
                                                     : "";
  if (rule.empty())
    throw ConfigError(
        "no dataset: give data (with a dataset layout), images and masks, or list_file");
  DatasetSpec spec;
  if (rule == "shards") {
    // The shards name their members; no folder, suffix or extension applies.
    refuse_with(
        rule, {"split", "images", "masks", "list_file", "root", "allow_outside_root",
               "image_suffix", "mask_suffix", "image_extensions", "mask_extensions", "recursive"});
    const std::string endpoint_url = has("endpoint_url") ? get("endpoint_url") : "";
    // Not echoed: a value with user:password@ would print its secret.
    const bool http =
        endpoint_url.rfind("http://", 0) == 0 || endpoint_url.rfind("https://", 0) == 0;
    if (has("endpoint_url") && (!http || endpoint_url.find('@') != std::string::npos))
      throw ConfigError(
          "endpoint_url must be http://host[:port] or https://host[:port], without user:password@ "
          "(the credentials come from the environment or the profile)");
    if (has("shards")) {
      if (has("endpoint_url"))
        throw ConfigError("endpoint_url is for shards in object storage, read through their index");
      if (!data.empty()) throw ConfigError("give the shards as data or as shards, not both");
      std::vector<fs::path> tars;
      for (std::string& tar : Split(get("shards"))) tars.emplace_back(std::move(tar));
      return DatasetSpec::Shards(std::move(tars));
    }
    if (data.empty()) throw ConfigError("the shards rule needs data (the shards or their index)");
    return DatasetSpec::Shards(data, endpoint_url);
  }
  if (rule == "folders" || rule == "list") {
    refuse_with(rule, {"split"});
    refuse_with(rule, {"shards", "endpoint_url"});
    if (rule == "folders") refuse_with(rule, {"list_file", "root", "allow_outside_root"});
    if (rule == "folders" && (!has("images") || !has("masks")))
      throw ConfigError(has("images") ? "images needs masks"
                                      : "the folders rule needs images and masks");
    if (rule == "list" && !has("list_file")) throw ConfigError("the list rule needs list_file");
    if (has("images") != has("masks"))
      throw ConfigError(has("images") ? "images needs masks" : "masks needs images");
    spec.name = rule;
    spec.root = data;
    if (has("images")) {
      spec.image_dir = data / fs::path(get("images"));  // an absolute one replaces data
      spec.mask_dir = data / fs::path(get("masks"));
    }
    if (has("list_file")) spec.list_file = get("list_file");
    if (has("root")) spec.list_root = get("root");
  } else {
    refuse_with(rule, {"images", "masks", "list_file", "root", "allow_outside_root", "shards",
                       "endpoint_url"});
    spec = DatasetPreset(rule, data, has("split") ? get("split") : "");
  }
  if (has("image_suffix")) spec.image_suffix = get("image_suffix");
  if (has("mask_suffix")) spec.mask_suffix = get("mask_suffix");
  if (has("image_extensions"))
    spec.image_extensions = Extensions("image_extensions", get("image_extensions"));
  if (has("mask_extensions"))
    spec.mask_extensions = Extensions("mask_extensions", get("mask_extensions"));
  if (has("recursive")) spec.recursive = Switch("recursive", get("recursive"));
  if (has("allow_outside_root"))
    spec.allow_outside_root = Switch("allow_outside_root", get("allow_outside_root"));
  return spec;
}

}  // namespace segfeed
