#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/export.h"

namespace segfeed {

struct ObjectStorageOptions;  // segfeed/options.h

namespace source {
class SampleSource;  // where a sample's bytes come from (internal)
}  // namespace source

// How a dataset's images and masks are found and paired: one of three rules,
// or tar shards (the fourth, below).
//
// Folders: an image `image_dir/<key><image_suffix><ext>` pairs with the mask
// `mask_dir/<key><mask_suffix><mask ext>`. With `recursive`, both folders
// are walked and a pair shares its sub-folder too:
// `leftImg8bit/train/aachen/aachen_000000_000019_leftImg8bit.png` pairs with
// `gtFine/train/aachen/aachen_000000_000019_gtFine_labelIds.png`; files that
// do not fit the suffix rule (`_gtFine_color.png`, `.json`) are ignored, not
// unpaired.
//
// List of keys (`list_file` set, every line one key): the keys of the file,
// in its order, each resolved with the folder rule (a key may name a
// sub-folder: "aachen/aachen_000000_000019").
//
// List of pairs (`list_file` set, every line two columns: image path, mask
// path, separated by a tab, a comma or white space): the files named,
// relative to `list_root`, in the file's order. A path that leads outside
// the root (absolute, "../x", or through a symbolic link to a file or
// folder elsewhere) is refused, an outside_root problem naming the list,
// the line, the path as written and why, unless `allow_outside_root`; a
// link that resolves inside the root is fine.
//
// In a list, '#' starts a comment line and blank lines are skipped; a key
// (or image path) listed twice is a ConfigError naming both lines, whatever
// the spelling ("./a", "a//b" and "a/./b" are "a" and "a/b"; an image reached
// again through "..", a symbolic or a hard link is found by device and
// inode; several images may share a mask), and a listed file that does not
// exist is an unpaired file (missing_image or missing_mask); one that is a
// folder is one too, "not a regular file (a folder)".
// Extensions match case-insensitively (".jpg" matches "a.JPG").
//
// Tar shards (`shards` or `shard_index` set, name "shards"): samples stored
// in WebDataset's layout, `<key>.jpg` beside `<key>.mask.png` (docs/shards.md),
// read through their index (`segfeed index` writes it; a dataset packed by
// `segfeed pack` has one): a sample's id is its position in the index, so
// shards packed from folders stream the folders' batches. Without an index
// the shards are scanned when the dataset is listed (one line on stderr says
// how long that took). The suffix, extension, folder and list fields do not
// apply. DatasetSpec::Shards() takes `options` from the index (`segfeed
// pack` records the dataset's label options there), as a preset sets its.
struct SEGFEED_EXPORT DatasetSpec {
  // The rule's name in reports: the preset's ("carvana", "voc", ...; see
  // DatasetPresetNames()), else "folders" or "list".
  std::string name = "folders";
  // The folder a preset or a list was given (for messages and for the
  // two-column list's paths when list_root is empty).
  std::filesystem::path root;
  // Folder holding the photos.
  std::filesystem::path image_dir;
  // Folder holding the masks; may be the same folder as image_dir.
  std::filesystem::path mask_dir;
  // Between the key and the extension of an image ("_leftImg8bit"); usually
  // empty.
  std::string image_suffix;
  // Between the key and the extension of a mask ("0cdf5b5d_01" ->
  // "0cdf5b5d_01_mask.gif"). May be empty when the folders differ.
  std::string mask_suffix = "_mask";
  // Extensions (with the dot) that make a file an image: JPEG or PNG.
  std::vector<std::string> image_extensions = {".jpg", ".jpeg", ".png"};
  // Extensions (with the dot) that make a file a mask: GIF or PNG.
  std::vector<std::string> mask_extensions = {".gif", ".png"};
  // Walk image_dir and mask_dir into their sub-folders.
  bool recursive = false;
  // More (image folder, mask folder) pairs, each listed by the folder rule
  // as image_dir and mask_dir are, after them and in this order, for a
  // dataset whose split spans folders (LoveDA's Rural and Urban). The pairs
  // are then kept by their paths under `root`, keyed by the image's path
  // without its extension ("Train/Urban/images_png/1366"). Not with a list.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> more_folders;
  // A text file of keys or of (image, mask) paths; empty: the folder rule.
  std::filesystem::path list_file;
  // Where a two-column list's relative paths start; empty: `root`, or the
  // list file's folder when root is empty too.
  std::filesystem::path list_root;
  // Let a two-column list name files outside list_root: absolute paths,
  // "..", symbolic links that lead elsewhere. Off, such a line is an
  // outside_root problem and its pair is not made (so a list from
  // somewhere else cannot make the loader or the checker read, say,
  // ~/.ssh/id_rsa); turn it on for a list you trust that spans folders.
  bool allow_outside_root = false;
  // Options the layout implies (a preset's label options: mask_mode,
  // num_classes, mask_ignore_value, label_map), as option-table name and CLI
  // text. The front ends apply them before the user's own options, which
  // win; a C++ program applies them with ApplyDatasetOptions().
  std::vector<std::pair<std::string, std::string>> options;
  // The shards' paths, in order (their samples are listed shard by shard,
  // in tar order). With `shard_index` empty, the index beside the first
  // shard (index.sfidx) is read when it lists exactly these shards, else
  // they are scanned.
  std::vector<std::filesystem::path> shards;
  // A shard index file; its shards are the dataset (`shards` may be empty).
  // Or an index object in object storage ("s3://bucket/voc/index.sfidx",
  // "https://host/voc/index.sfidx"), read by range requests.
  std::filesystem::path shard_index;
  // The index object in object storage as Shards() fetched it (its digest
  // checked), so that listing the dataset (the Loader, plan, check) does
  // not fetch it again: one GET of the index per spec. Used only while its
  // URL is shard_index; empty (a spec written by hand, a fetch that
  // failed): fetched when listed.
  struct FetchedShardIndex {
    std::string url;
    std::vector<uint8_t> bytes;
    // Fetched unsigned: a listing reuses the bytes only when it reads as
    // the fetch did (a signed fetch does not answer for no_sign_request).
    bool no_sign_request = false;
  };
  std::shared_ptr<const FetchedShardIndex> fetched_shard_index;
  // The S3 endpoint of an s3:// shard_index (MinIO, Ceph, R2, a local
  // server): empty for AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
  // endpoint_url, else AWS itself. Part of where the dataset is, as the URL.
  std::string endpoint_url;

  // A shard dataset from what `data` names: a folder holding index.sfidx,
  // an index file (".sfidx"), a tar or WebDataset's brace notation for
  // numbered tars ("train-{000000..000031}.tar": every number from the
  // first to the last, zero-padded to the first's width; one range per
  // pattern, or several braces, expanded left to right), or a prefix or
  // index in object storage ("s3://bucket/voc/", "https://host/voc/": the
  // index.sfidx under it). ConfigError for a folder without an index, a
  // malformed range, tars in object storage (read through their index).
  // `endpoint_url` ("http://127.0.0.1:9000", "https://minio.lan"): the S3
  // endpoint of an s3:// dataset, before AWS_ENDPOINT_URL_S3,
  // AWS_ENDPOINT_URL and the profile's endpoint_url; ConfigError with local
  // data.
  static DatasetSpec Shards(const std::filesystem::path& data,
                            const std::string& endpoint_url = {});
  // A shard dataset of these tars, in this order.
  static DatasetSpec Shards(std::vector<std::filesystem::path> tars);

  // Kaggle Carvana's layout, what `--data DIR` means: images in DIR/train,
  // masks in DIR/train_masks named <key>_mask.gif (or .png, as make-demo
  // --classes writes them).
  static DatasetSpec Carvana(const std::filesystem::path& root);
  // PASCAL VOC 2012: ROOT/JPEGImages/<id>.jpg with the palette PNG
  // ROOT/SegmentationClass/<id>.png (21 classes, 255 ignored), the ids of
  // ROOT/ImageSets/Segmentation/<split>.txt (train, val, trainval).
  static DatasetSpec Voc(const std::filesystem::path& root, std::string_view split);
  // Cityscapes (gtFine): ROOT/leftImg8bit/<split>/<city>/<key>_leftImg8bit.png
  // with ROOT/gtFine/<split>/<city>/<key>_gtFine_labelIds.png, label ids
  // mapped to the 19 training classes by the dataset's table (others 255).
  static DatasetSpec Cityscapes(const std::filesystem::path& root, std::string_view split);
  // ADE20K (ADEChallengeData2016): ROOT/images/<split>/<key>.jpg with
  // ROOT/annotations/<split>/<key>.png, split training or validation (train
  // and val are accepted); 150 classes, 0 ignored and the others minus one.
  static DatasetSpec Ade20k(const std::filesystem::path& root, std::string_view split);
};

// Whether `data` names a shard dataset for DatasetSpec::Shards(): a path
// ending in ".tar" or ".sfidx", one with a brace range, or a folder holding
// index.sfidx. What the front ends' `data` turns into when no dataset
// keyword says otherwise.
SEGFEED_EXPORT bool IsShardData(const std::filesystem::path& data);

// The presets by name ("carvana", "voc", "cityscapes", "ade20k", "camvid",
// "camvid32", "coco_stuff", "mapillary", "mapillary_v2", "bdd100k",
// "loveda"), what the CLI's --dataset and Python's dataset= accept besides
// "folders" and "list".
SEGFEED_EXPORT std::span<const std::string_view> DatasetPresetNames();

// One training class of a preset's dataset, as its dataset publishes it.
struct DatasetClass {
  std::string_view name;
  // The colour the dataset gives the class (its palette, colour-coded masks
  // or label table); nullopt where it publishes none (COCO-Stuff).
  std::optional<std::array<uint8_t, 3>> color;
};
// The training classes of preset `name`, class i at index i (what the
// preset's class_names option holds); empty for carvana (binary masks),
// camvid32 (its classes are read from the dataset's label_colors.txt) and
// names that are not presets. Static storage: the span never dangles.
SEGFEED_EXPORT std::span<const DatasetClass> DatasetPresetClasses(std::string_view name);
// The preset `name` for `root` and `split` (empty: the preset's default
// split, "train"). ConfigError for an unknown name or split.
SEGFEED_EXPORT DatasetSpec DatasetPreset(std::string_view name, const std::filesystem::path& root,
                                         std::string_view split);

// The dataset's keywords, the one list the CLI's "dataset:" flags and
// Python's Loader keywords are made from: name (the keyword), flag (without
// dashes), the placeholder of its value ("" for a switch) and what it does.
struct DatasetOption {
  std::string_view name;
  std::string_view flag;
  std::string_view value_name;
  std::string_view doc;
};
SEGFEED_EXPORT std::span<const DatasetOption> DatasetOptionTable();

// The DatasetSpec that a front end's dataset keywords describe: `data` (the
// CLI's --data, Python's first argument) and the values of
// DatasetOptionTable() entries that were given, as text (a switch "true" or
// "false", extensions ".jpg,.png"). The rule is `dataset` when given, else
// "list" with list_file, "folders" with images and masks, "shards" when
// IsShardData(data), "carvana" with only data. A preset takes data as its root and may have its
// suffixes, extensions and recursion changed, not its folders; for the folder rule, relative images
// and masks folders are under data when it is given. ConfigError naming the keywords for a
// contradiction or a missing part.
SEGFEED_EXPORT DatasetSpec DatasetFromValues(
    const std::filesystem::path& data, std::span<const std::pair<std::string, std::string>> values);

// The rule `spec` pairs by, in one line for reports: "carvana: DIR/train/<key>.jpg
// with DIR/train_masks/<key>_mask.gif", "folders (recursive): ...", "list of
// keys FILE: ...", "list of (image, mask) paths FILE under ROOT".
SEGFEED_EXPORT std::string DescribeDatasetRule(const DatasetSpec& spec);

// One image with its mask, the unit the loader streams.
struct SamplePair {
  // The pair's key: the image's name without suffix and extension, led by
  // its sub-folder in a recursive listing ("train/aachen/aachen_000000_000019")
  // or by the folders a list named it with.
  std::string stem;
  std::filesystem::path image_path;
  std::filesystem::path mask_path;
};

// The complete pairs of a listing, in the listing's order, stored
// compactly: one string table of keys, a table of the sub-folders (each
// stored once) and, per pair, where its key ends, its sub-folder and which of
// a few extension spellings its two files have (16 bytes per pair plus the
// key's bytes), so that millions of pairs cost megabytes, not gigabytes. A
// two-column list keeps both paths in the table instead (16 bytes plus the
// two paths). Elements are made on access: operator[] and the iterator
// return a SamplePair by value. Immutable once listed; safe to read from any
// thread.
class SEGFEED_EXPORT PairList {
 public:
  class Iterator {
   public:
    using value_type = SamplePair;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    Iterator(const PairList* list, size_t index) : list_(list), index_(index) {}
    SamplePair operator*() const { return (*list_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    const PairList* list_ = nullptr;
    size_t index_ = 0;
  };

  PairList() = default;
  // An empty list of keyed pairs: image_dir / folder / (key + image_suffix +
  // ext) with mask_dir / folder / (key + mask_suffix + ext).
  PairList(std::filesystem::path image_dir, std::filesystem::path mask_dir,
           std::string image_suffix, std::string mask_suffix);
  // An empty list of pairs named by their paths under `root`.
  explicit PairList(std::filesystem::path root);

  // Adds sub-folder `relative` ("" for none; "train/aachen"; each one once)
  // and returns its index for AddKeyed().
  uint32_t AddFolder(std::string_view relative);
  // Appends the keyed pair `key` in sub-folder `folder` (from AddFolder()).
  void AddKeyed(uint32_t folder, std::string_view key, std::string_view image_extension,
                std::string_view mask_extension);
  // Appends the pair root / image, root / mask (relative paths), keyed by
  // the image's path without its extension.
  void AddPaths(std::string_view image, std::string_view mask);

  size_t size() const { return key_ends_.size(); }
  bool empty() const { return key_ends_.empty(); }
  SamplePair operator[](size_t index) const;
  // operator[] that throws std::out_of_range for an index past the end.
  SamplePair at(size_t index) const;
  SamplePair front() const { return (*this)[0]; }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

  // Bytes this list holds on the heap (its capacities), for the memory plan.
  size_t memory_bytes() const;

 private:
  std::string_view Text(size_t index) const;

  std::filesystem::path image_dir_;  // the root for AddPaths() pairs
  std::filesystem::path mask_dir_;
  std::string image_suffix_;
  std::string mask_suffix_;
  bool by_paths_ = false;
  std::string text_;                       // keys (or "image\0mask" paths), back to back
  std::vector<uint64_t> key_ends_;         // where each pair's text ends in text_
  std::vector<uint32_t> folder_;           // index into folders_ (keyed pairs)
  std::vector<uint16_t> image_extension_;  // index into extensions_
  std::vector<uint16_t> mask_extension_;
  std::vector<std::string> folders_;     // "" and the sub-folders seen
  std::vector<std::string> extensions_;  // the spellings seen (".jpg", ".JPG", ".gif")
};

// A file in a dataset folder that the listing did not use, and why.
struct IgnoredFile {
  std::filesystem::path path;
  std::string reason;  // "hidden", "not an image or mask", "duplicate of <name>", ...
};

// What ListDataset() found. The same whatever order the file system returns
// its entries in.
struct Dataset {
  // Complete pairs, the only samples the loader uses: sorted by sub-folder
  // and key (bytewise) for the folder rule, in the file's order for a list.
  PairList pairs;
  // missing_mask (path: the image), orphan_mask (path: the mask),
  // missing_image (a list's line without its image), duplicate_key (a
  // key with two images or two masks, "a.jpg" and "a.JPG": both named, no
  // pair made) and outside_root (a list's line naming a file outside its
  // root: no pair made) records, in key order (a list's: line order), for
  // the checker and the loader. A scanned shard dataset adds io_error
  // records of the samples a damaged or missing shard lost (its whole
  // samples before the damage are listed), in shard order.
  std::vector<Error> problems;
  // Hidden files, sub-folders (when not recursive) and files that are
  // neither image nor mask by the rule, sorted by path, for the checker to
  // count and list. A list ignores the files it does not name, silently.
  // A Loader keeps only their count: a Cityscapes tree ignores three files
  // per pair, whose paths would cost more than the pairs.
  std::vector<IgnoredFile> ignored;
  size_t ignored_count = 0;  // ignored.size() as listed
  // A shard dataset's samples and their bytes (the index's or a scan's
  // catalog, read by offset); null for the file rules, whose samples are
  // `pairs`. Every reader of the dataset (the Loader, the checker, the
  // plan) reads through it; `pairs` stays empty.
  std::shared_ptr<source::SampleSource> shard_source;

  // Samples in the dataset: pairs.size(), or the shards' samples.
  SEGFEED_EXPORT size_t sample_count() const;
  // Sample `id`'s key (a pair's stem; a shard sample's key).
  SEGFEED_EXPORT std::string SampleKey(size_t id) const;
  // Sample `id`'s photo and mask as messages name them: the files' paths,
  // or "<shard>:<key>.<extension>".
  SEGFEED_EXPORT std::pair<std::string, std::string> SampleNames(size_t id) const;
};

// Lists the dataset by `spec`'s rule and pairs images with masks. Symlinks
// are followed (a folder reached twice is walked once); a dangling symlink
// with an image or mask name is listed like a file, so reading it later
// fails with an io_error naming it instead of vanishing silently. Names are
// compared as raw bytes, so spaces and UTF-8 work. Throws ConfigError for an
// invalid spec (no extensions, an empty folder path), a list file line that
// cannot be parsed or repeats a key (naming the lines) and a preset pointed
// at a folder of another layout (saying what it expected and found), and
// FileError (io_error) when a folder or the list cannot be read.
SEGFEED_EXPORT Dataset ListDataset(const DatasetSpec& spec);
// The same, with the settings a shard dataset in object storage is read
// with (signing, retries, read-ahead: options.h); the loader passes its
// LoaderOptions::object_storage.
SEGFEED_EXPORT Dataset ListDataset(const DatasetSpec& spec,
                                   const ObjectStorageOptions& object_storage);

}  // namespace segfeed
