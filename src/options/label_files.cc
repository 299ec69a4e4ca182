#include "options/label_files.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "segfeed/errors.h"

namespace segfeed::options {
namespace {

std::string Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

// The file's lines that say something: no blank lines, no '#' comments.
std::vector<std::pair<int, std::string>> MeaningfulLines(std::string_view option,
                                                         const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    throw ConfigError(std::string(option) + " cannot read '" + path + "' (" + std::strerror(errno) +
                      ")");
  }
  std::vector<std::pair<int, std::string>> lines;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    std::string trimmed = Trimmed(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    lines.emplace_back(number, std::move(trimmed));
  }
  if (file.bad()) throw ConfigError(std::string(option) + " cannot read '" + path + "'");
  return lines;
}

bool IsVoid(std::string_view name) {
  if (name.size() != 4) return false;
  for (size_t i = 0; i < 4; ++i) {
    if ((name[i] | 0x20) != "void"[i]) return false;
  }
  return true;
}

}  // namespace

ColourFile ReadColourFile(std::string_view option, const std::string& path) {
  ColourFile parsed;
  bool any_name = false;
  int next_class = 0;
  for (const auto& [number, line] : MeaningfulLines(option, path)) {
    std::istringstream fields(line);
    MaskColor colour;
    for (uint8_t& channel : colour.rgb) {
      int level = -1;
      if (!(fields >> level) || level < 0 || level > 255) {
        throw ConfigError(std::string(option) + " file " + path + " line " +
                          std::to_string(number) + " must start with three levels R G B in [0, " +
                          "255] (got '" + line + "')");
      }
      channel = static_cast<uint8_t>(level);
    }
    std::string name;
    std::getline(fields, name);
    name = Trimmed(name);
    any_name = any_name || !name.empty();
    colour.ignored = IsVoid(name);
    if (!colour.ignored) {
      colour.label = next_class++;
      parsed.class_names.push_back(std::move(name));
    }
    parsed.colours.push_back(colour);
  }
  if (parsed.colours.empty())
    throw ConfigError(std::string(option) + " file " + path + " lists no colours");
  if (!any_name) parsed.class_names.clear();
  return parsed;
}

std::vector<std::string> ReadNameFile(std::string_view option, const std::string& path) {
  std::vector<std::string> names;
  for (auto& [number, line] : MeaningfulLines(option, path)) names.push_back(std::move(line));
  if (names.empty()) throw ConfigError(std::string(option) + " file " + path + " names nothing");
  return names;
}

bool LooksLikeFilePath(std::string_view text) {
  if (text.find(':') != std::string_view::npos) return false;
  return text.ends_with(".txt") || text.find('/') != std::string_view::npos;
}

}  // namespace segfeed::options
