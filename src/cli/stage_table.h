#pragma once

#include <string>
#include <string_view>

#include "segfeed/loader.h"

namespace segfeed::cli {

// What `segfeed bench` calls a field of StageSeconds' field list: a decode
// stage, decode_<role>_<format>, reads "<FORMAT> decode (<role>s)" ("JPEG
// decode (photos)", "PNG decode (masks)", decode_photo_jpeg_roi "JPEG ROI
// decode (photos)"); any other field its own name, an
// underscore a space ("read", "consumer wait"). Derived from the name, so
// a stage added to the list needs no second list of labels.
std::string StageLabel(std::string_view field);

// bench's stage table: a heading, then one line per stage of the field list
// that had any time, with its label, its thread-seconds and its share of
// all the stages' time, and a last line with the consumer's wait (wall
// time, not a stage of the decode threads, so no share).
std::string StageTable(const StageSeconds& stages);

}  // namespace segfeed::cli
