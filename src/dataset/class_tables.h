#pragma once

// The published class tables of the presets' datasets: each training
// class's name and colour, class i at index i. Each .cc names the
// publication its table is transcribed from.

#include <span>

#include "segfeed/dataset.h"

namespace segfeed::dataset {

std::span<const DatasetClass> CamvidClasses();        // SegNet's 11
std::span<const DatasetClass> VocClasses();           // 21, background 0
std::span<const DatasetClass> CityscapesClasses();    // 19 train ids; BDD100K's too
std::span<const DatasetClass> LovedaClasses();        // 7, mask values 1-7
std::span<const DatasetClass> Ade20kClasses();        // 150, mask values 1-150
std::span<const DatasetClass> CocoStuffClasses();     // 171
std::span<const DatasetClass> MapillaryV12Classes();  // 65 (Unlabeled left out)
std::span<const DatasetClass> MapillaryV20Classes();  // 123 (Unlabeled left out)
// COCO's category id of each of CocoStuffClasses(); a stuffthingmaps PNG
// stores id - 1.
std::span<const int> CocoStuffCategoryIds();

}  // namespace segfeed::dataset
