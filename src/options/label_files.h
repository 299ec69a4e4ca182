#pragma once

// The two files the label options read instead of their text: a colour list
// (mask_colors, CamVid's label_colors.txt) and a list of class names
// (class_names). Both are small configuration files the user names, read
// once when the option is set; they are not part of a dataset's stream.

#include <string>
#include <string_view>
#include <vector>

#include "segfeed/options.h"

namespace segfeed::options {

// A colour file's colours and the class names its lines carry.
struct ColourFile {
  std::vector<MaskColor> colours;
  // One per class, in class order; empty when the lines name nothing.
  std::vector<std::string> class_names;
};

// Reads a colour list in CamVid's label_colors.txt form: one colour per
// line, "R G B NAME" (the name optional, the rest of the line after the
// three levels). Colours are classes 0, 1, ... in the file's order, except
// a line named Void (any case), CamVid's word for pixels without a class,
// which is ignored (MaskColor::ignored) and takes no class number. Blank
// lines and lines starting with '#' are skipped. ConfigError naming
// `option`, the file and the line for anything else.
ColourFile ReadColourFile(std::string_view option, const std::string& path);

// Reads one class name per line (trimmed; blank lines and lines starting
// with '#' are skipped). ConfigError naming `option` and the file when it
// cannot be read.
std::vector<std::string> ReadNameFile(std::string_view option, const std::string& path);

// Whether `text`, an option's CLI text, names a file rather than listing
// entries: it ends in ".txt" or contains a path separator, and no ':'.
bool LooksLikeFilePath(std::string_view text);

}  // namespace segfeed::options
