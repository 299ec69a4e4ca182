#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/dataset_checker.h"
#include "check/file_checker.h"

namespace segfeed::check {

// The checks that look at more than one file's outcome, after every file
// has been checked. `outcomes[i]` belongs to `jobs[i]` (CheckFiles()).

// The size_mismatch problem of image job `i` (on the image, naming the mask
// in its detail) when its pair's mask, the next job, has another
// full-resolution size; none when either header could not be read.
std::optional<Error> PairSizeMismatch(const std::vector<FileJob>& jobs,
                                      const std::vector<FileOutcome>& outcomes, size_t i);

// The suspicious_mask problem of a binary-mode check whose `decoded_masks`
// all have no foreground pixel, on the mask folder: training on them would
// learn "always background", and the rule that reads them is the likelier
// mistake than every mask being empty.
Error AllBackgroundMasks(const std::string& mask_dir, int64_t decoded_masks);

// Groups of byte-identical non-empty files among the outcomes (candidates
// by size and digest, confirmed byte by byte), each sorted by path, groups
// sorted by their first path.
std::vector<std::vector<std::string>> FindDuplicates(const std::vector<FileJob>& jobs,
                                                     const std::vector<FileOutcome>& outcomes);

// Masks whose palette is not the most common one (the smallest digest among
// equally common ones, so the choice does not depend on the order), into
// report->other_palette_masks and other_palette_paths. This is information
// rather than a problem: writers often store only the colours a mask uses,
// or a shorter palette, and a mask is read by its indices (or by
// mask_colors, whose unlisted colours are label_out_of_range already), so a
// different palette is no error by itself; it only hints at a second tool.
void FindOtherPalettes(const std::vector<FileJob>& jobs, const std::vector<FileOutcome>& outcomes,
                       CheckReport* report);

}  // namespace segfeed::check
