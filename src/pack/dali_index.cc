#include "pack/dali_index.h"

#include <string_view>

#include "source/shard_samples.h"

namespace segfeed::pack {

Result<std::string> DaliIndexText(const source::TarScan& scan) {
  if (scan.stopped) return *scan.stopped;
  std::string lines;
  std::string_view run_key;
  int64_t samples = 0;
  for (const source::TarMember& member : scan.members) {
    if (member.kind != source::TarEntryKind::kRegular) continue;
    if (member.name.find_first_of(" \t\n\r") != std::string::npos) {
      return Error{ErrorKind::kIoError, scan.shard.string() + ":" + member.name,
                   "a member name with whitespace cannot be written in DALI's index"};
    }
    const auto [key, extension] = source::SplitMemberName(member.name);
    if (samples == 0 || key != run_key) {
      if (samples > 0) lines += '\n';
      run_key = key;
      ++samples;
    } else {
      lines += ' ';
    }
    lines += std::string(extension) + ' ' + std::to_string(member.data_offset) + ' ' +
             std::to_string(member.size) + ' ' + member.name;
  }
  if (samples > 0) lines += '\n';
  return "v1.2 " + std::to_string(samples) + '\n' + lines;
}

}  // namespace segfeed::pack
