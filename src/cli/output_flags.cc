#include "cli/output_flags.h"

#include <string>

namespace segfeed::cli {
namespace {

namespace fs = std::filesystem;

// 'path', for messages. Appending piecewise sidesteps a false -Wrestrict in
// GCC 12 for "'" + s.
std::string Quoted(const fs::path& path) {
  std::string text = "'";
  text += path.string();
  text += "'";
  return text;
}

[[noreturn]] void ThrowUsage(const std::string& option, const Error& error) {
  throw UsageError(option + " " + Quoted(error.path) + ": " + error.detail);
}

// The folders a command must never write into while it reads them: the
// image folder and the mask folder of the dataset on the command line.
void RefuseInsideTheDataset(const DatasetFlags& dataset, const std::string& option,
                            const fs::path& path) {
  if (!dataset.given()) return;
  const DatasetSpec spec = dataset.Spec();
  std::vector<fs::path> folders;
  for (const fs::path& folder : {spec.image_dir, spec.mask_dir, spec.list_root}) {
    if (!folder.empty()) folders.push_back(folder);
  }
  // A two-column list's files are anywhere under its root; a list named
  // without a folder ("pairs.tsv") has the working folder as its root, and
  // an empty path would be a folder every output is below.
  if (folders.empty()) {
    const fs::path root = spec.root.empty() ? spec.list_file.parent_path() : spec.root;
    folders.push_back(root.empty() ? fs::path(".") : root);
  }
  if (Status inside = output::CheckOutsideFolders(path, folders); !inside.ok()) {
    ThrowUsage(option, inside.error());
  }
}

}  // namespace

std::optional<output::OutputFile> OutputFileFromFlag(const std::optional<std::string>& path,
                                                     const std::string& option,
                                                     const DatasetFlags& dataset) {
  if (!path) return std::nullopt;
  RefuseInsideTheDataset(dataset, option, *path);
  Result<output::OutputFile> file = output::OutputFile::Prepare(*path);
  if (!file.ok()) ThrowUsage(option, file.error());
  return std::move(file).value();
}

std::optional<fs::path> OutputFolderFromFlag(const std::optional<std::string>& dir,
                                             const std::string& option,
                                             const DatasetFlags& dataset) {
  if (!dir) return std::nullopt;
  RefuseInsideTheDataset(dataset, option, *dir);
  if (Status writable = output::CheckOutputFolder(*dir); !writable.ok())
    ThrowUsage(option, writable.error());
  return fs::path(*dir);
}

}  // namespace segfeed::cli
