#include "support/hostile_names.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fixtures/fixtures.h"
#include "support/planted_dataset.h"

namespace segfeed::testing {

namespace fs = std::filesystem;

std::string LongStem(const std::string& prefix, size_t bytes) {
  std::string stem = prefix;
  while (stem.size() + 2 <= bytes) stem += "\xc3\xa9";  // é
  if (stem.size() < bytes) stem += 'x';
  return stem;
}

HostileNamesDataset WriteHostileNamesDataset(const fs::path& root) {
  WriteCleanDataset(root, 6);
  const fs::path train = root / "train", masks = root / "train_masks";
  std::vector<std::string> stems;
  for (const auto& entry : fs::directory_iterator(train))
    stems.push_back(entry.path().stem().string());
  std::sort(stems.begin(), stems.end());
  HostileNamesDataset dataset;
  auto image = [&](const std::string& stem) { return (train / (stem + ".jpg")).string(); };
  auto mask = [&](const std::string& stem) { return (masks / (stem + "_mask.gif")).string(); };
  auto rename = [&](size_t index, const std::string& stem) {
    fs::rename(image(stems[index]), image(stem));
    fs::rename(mask(stems[index]), mask(stem));
  };

  rename(0, "ok_01");
  const std::string not_utf8 = "bad\xff\xfe latin-1 \xe9t\xe9";
  rename(1, not_utf8);
  WriteFile(image(not_utf8), {});
  const std::string two_lines = "two\nlines";
  rename(2, two_lines);
  fs::resize_file(image(two_lines), fs::file_size(image(two_lines)) / 2);
  dataset.escaped_stem = "\x1b[31mred\x1b[0m\x1b]0;title\x07";
  rename(3, dataset.escaped_stem);
  fs::remove(mask(dataset.escaped_stem));
  rename(4, LongStem("long ", kLongestStemBytes));  // a good pair
  const std::string duplicate = "dup\x80\x1b[2J";
  rename(5, duplicate);
  fs::copy_file(image("ok_01"), image(duplicate), fs::copy_options::overwrite_existing);
  fs::copy_file(mask("ok_01"), mask(duplicate), fs::copy_options::overwrite_existing);
  // The CSI of C1 (U+009B) and an invalid byte, in a name of 255 bytes.
  const std::string orphan = LongStem(
      "orphan \xc2\x9b"
      "2J \xff ",
      kLongestStemBytes);
  WriteFile(mask(orphan), EncodeMaskGif(std::vector<uint8_t>(64 * 48, 1), 64, 48));
  dataset.ignored = (train / "notes \x1b[1m\xff.txt").string();
  WriteFile(dataset.ignored, {'x'});

  dataset.pairs = 5;  // the empty and the cut image's pairs among them
  dataset.skipped = {image(not_utf8), image(two_lines)};
  dataset.unpaired = {image(dataset.escaped_stem), mask(orphan)};
  dataset.problems = {image(not_utf8), image(two_lines), image(dataset.escaped_stem), mask(orphan)};
  std::sort(dataset.problems.begin(), dataset.problems.end());
  dataset.duplicates = {image(duplicate), image("ok_01"), mask(duplicate), mask("ok_01")};
  std::sort(dataset.duplicates.begin(), dataset.duplicates.end());
  return dataset;
}

}  // namespace segfeed::testing
