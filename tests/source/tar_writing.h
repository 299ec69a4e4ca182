#pragma once

// Tars for the shard tests, written by libarchive's writer in the three
// dialects readers meet: ustar, GNU tar (long names in 'L' entries) and PAX
// (extended headers), and tools to damage them.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace segfeed::testing {

enum class TarFormat { kUstar, kGnu, kPax };
// "ustar", "gnu", "pax", for test names.
const char* TarFormatName(TarFormat format);

struct TarEntrySpec {
  enum class Type { kFile, kFolder, kSymlink };
  std::string name;
  std::vector<uint8_t> bytes;  // kFile only
  Type type = Type::kFile;
};

inline TarEntrySpec File(std::string name, std::vector<uint8_t> bytes) {
  return {std::move(name), std::move(bytes), TarEntrySpec::Type::kFile};
}

// Writes `entries` in order; aborts the test (gtest failure) when
// libarchive refuses one.
void WriteTar(const std::filesystem::path& path, TarFormat format,
              const std::vector<TarEntrySpec>& entries);

std::vector<uint8_t> ReadAll(const std::filesystem::path& path);
void WriteAll(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// Where the ustar header of the entry whose data starts at `data_offset`
// is (the 512 bytes before it), and a rewrite of its size field with the
// checksum made right again, so that only the size lies.
void SetUstarSize(std::vector<uint8_t>* tar, int64_t data_offset, int64_t size);

}  // namespace segfeed::testing
