#pragma once

// The DatasetSpec of each preset added after the first four (whose specs
// are DatasetSpec's own Carvana(), Voc(), Cityscapes(), Ade20k()): the
// folders a split reads, the file names, and the label options the
// dataset's published conventions imply (num_classes, mask_ignore_value,
// label_map, class_names). `split` is the user's, already defaulted to
// "train" (camvid32 takes none). ConfigError for a split the layout does
// not have a folder for.

#include <filesystem>
#include <string_view>

#include "segfeed/dataset.h"

namespace segfeed::dataset {

DatasetSpec CamvidSpec(const std::filesystem::path& root, std::string_view split);
DatasetSpec Camvid32Spec(const std::filesystem::path& root);
DatasetSpec CocoStuffSpec(const std::filesystem::path& root, std::string_view split);
DatasetSpec MapillarySpec(const std::filesystem::path& root, std::string_view split,
                          std::string_view version);
DatasetSpec Bdd100kSpec(const std::filesystem::path& root, std::string_view split);
DatasetSpec LovedaSpec(const std::filesystem::path& root, std::string_view split);

// "Sky,Building,...": a class table as class_names' CLI text.
std::string ClassNamesText(std::span<const DatasetClass> classes);

}  // namespace segfeed::dataset
