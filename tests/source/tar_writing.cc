#include "source/tar_writing.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace segfeed::testing {

const char* TarFormatName(TarFormat format) {
  switch (format) {
    case TarFormat::kUstar:
      return "ustar";
    case TarFormat::kGnu:
      return "gnu";
    case TarFormat::kPax:
      break;
  }
  return "pax";
}

void WriteTar(const std::filesystem::path& path, TarFormat format,
              const std::vector<TarEntrySpec>& entries) {
  struct archive* archive = archive_write_new();
  switch (format) {
    case TarFormat::kUstar:
      archive_write_set_format_ustar(archive);
      break;
    case TarFormat::kGnu:
      archive_write_set_format_gnutar(archive);
      break;
    case TarFormat::kPax:
      // Not pax_restricted: every entry gets an extended header.
      archive_write_set_format_pax(archive);
      break;
  }
  ASSERT_EQ(archive_write_open_filename(archive, path.c_str()), ARCHIVE_OK)
      << archive_error_string(archive);
  for (const TarEntrySpec& spec : entries) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, spec.name.c_str());
    archive_entry_set_mtime(entry, 1700000000, 0);
    switch (spec.type) {
      case TarEntrySpec::Type::kFile:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_perm(entry, 0644);
        archive_entry_set_size(entry, static_cast<la_int64_t>(spec.bytes.size()));
        break;
      case TarEntrySpec::Type::kFolder:
        archive_entry_set_filetype(entry, AE_IFDIR);
        archive_entry_set_perm(entry, 0755);
        break;
      case TarEntrySpec::Type::kSymlink:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_perm(entry, 0777);
        archive_entry_set_symlink(entry, "elsewhere.jpg");
        break;
    }
    const int header = archive_write_header(archive, entry);
    EXPECT_GE(header, ARCHIVE_WARN) << spec.name << ": " << archive_error_string(archive);
    if (!spec.bytes.empty()) {
      EXPECT_EQ(archive_write_data(archive, spec.bytes.data(), spec.bytes.size()),
                static_cast<la_ssize_t>(spec.bytes.size()));
    }
    archive_entry_free(entry);
  }
  EXPECT_EQ(archive_write_close(archive), ARCHIVE_OK);
  archive_write_free(archive);
}

std::vector<uint8_t> ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void SetUstarSize(std::vector<uint8_t>* tar, int64_t data_offset, int64_t size) {
  uint8_t* header = tar->data() + data_offset - 512;
  std::snprintf(reinterpret_cast<char*>(header + 124), 12, "%011llo",
                static_cast<unsigned long long>(size));
  // The checksum: the header's bytes summed with its own field as spaces.
  std::fill(header + 148, header + 156, ' ');
  unsigned sum = 0;
  for (int i = 0; i < 512; ++i) sum += header[i];
  std::snprintf(reinterpret_cast<char*>(header + 148), 8, "%06o", sum);
  header[155] = ' ';
}

}  // namespace segfeed::testing
