#pragma once

// Checks of the commands' output by Debian's Python, whose json module and
// UTF-8 codec are real, strict implementations independent of the code under
// test: what a user's script reading the report will do.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace segfeed::testing {

// What python3 made of a JSON report.
struct JsonStrings {
  bool valid = false;
  std::string error;  // Python's message when not valid
  // Every string value of the document in order, as (where, exact bytes):
  // `where` is the keys from the root joined by '.' (array indices left out,
  // "problems.path"); the bytes are those of "<key>_bytes_hex" when the
  // value has one (after checking that those bytes are not UTF-8 and the
  // text shows U+FFFD for them), else the text's own UTF-8.
  std::vector<std::pair<std::string, std::string>> strings;

  // The exact bytes of every string at `where`, in document order.
  std::vector<std::string> At(const std::string& where) const {
    std::vector<std::string> values;
    for (const auto& [at, bytes] : strings) {
      if (at == where) values.push_back(bytes);
    }
    return values;
  }
};

// No single quote in the script: it travels inside one on the command line.
inline constexpr const char* kJsonStringsScript = R"(
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
def exact(text, hexed, keyed):
    if hexed is None:
        return text.encode("utf-8")
    raw = bytes.fromhex(hexed)
    if keyed:
        try:
            raw.decode("utf-8")
            sys.exit("bytes_hex beside a valid UTF-8 value: " + hexed)
        except UnicodeDecodeError:
            pass
        if "\ufffd" not in text:
            sys.exit("no U+FFFD in " + ascii(text) + " for bytes " + hexed)
    return raw
def strings(where, value, hexed, keyed):
    if isinstance(value, str):
        print(where + "\t" + exact(value, hexed, keyed).hex())
    elif isinstance(value, list):
        for i, item in enumerate(value):
            strings(where, item, None if hexed is None else hexed[i], False)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not key.endswith("_bytes_hex"):
                strings(where + "." + key if where else key, item, value.get(key + "_bytes_hex"), True)
strings("", doc, None, False)
)";

inline std::string FromHex(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

// Runs `/usr/bin/python3 -c <script> <file>` and returns its exit status
// and what it printed (stdout and stderr). `file` is single-quoted for the
// shell, so its name may not hold a single quote.
inline std::pair<int, std::string> RunPython(const std::string& script,
                                             const std::filesystem::path& file) {
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "'" + s.
  std::string command = "/usr/bin/python3 -c '";
  command += script;
  command += "' '";
  command += file.string();
  command += "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "cannot run python3"};
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  return {pclose(pipe), output};
}

// Parses the JSON file `path` with Python's json module, reading it as
// strict UTF-8.
inline JsonStrings ReadJsonStrings(const std::filesystem::path& path) {
  JsonStrings result;
  const auto [status, output] = RunPython(kJsonStringsScript, path);
  if (status != 0) {
    result.error = output;
    return result;
  }
  result.valid = true;
  size_t start = 0;
  while (start < output.size()) {
    const size_t end = output.find('\n', start);
    const std::string line = output.substr(start, end - start);
    const size_t tab = line.find('\t');
    result.strings.emplace_back(line.substr(0, tab), FromHex(line.substr(tab + 1)));
    start = end == std::string::npos ? output.size() : end + 1;
  }
  return result;
}

// Empty when `text` is strict UTF-8 holding no control character but
// newlines (no C0, DEL or C1), as Python decodes it; else what is wrong.
inline std::string RawControlOrNotUtf8(const std::string& text,
                                       const std::filesystem::path& scratch_file) {
  std::ofstream(scratch_file, std::ios::binary) << text;
  const auto [status, output] = RunPython(
      R"(
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8")
raw = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
if raw:
    sys.exit("raw control characters: " + ascii("".join(raw)))
)",
      scratch_file);
  return status == 0 ? "" : output;
}

}  // namespace segfeed::testing
