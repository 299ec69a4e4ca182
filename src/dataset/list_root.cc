#include "dataset/list_root.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace segfeed::dataset {
namespace {

namespace fs = std::filesystem;

// Links followed before giving up, as the kernel's MAXSYMLINKS.
constexpr int kMaxLinkHops = 40;

// `path` made absolute, with symbolic links, "." and ".." resolved as far as
// it exists, and without a trailing separator.
fs::path Resolved(const fs::path& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  fs::path resolved = fs::weakly_canonical(absolute, error);
  if (error) resolved = absolute.lexically_normal();
  if (!resolved.has_filename() && resolved != resolved.root_path())
    resolved = resolved.parent_path();
  return resolved;
}

// Where `path` leads when opened: Resolved(), and a dangling link at the
// end followed too (weakly_canonical stops at one), since what it names may
// appear later.
fs::path Destination(const fs::path& path) {
  fs::path resolved = Resolved(path);
  for (int hop = 0; hop < kMaxLinkHops; ++hop) {
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(resolved, error))) break;
    const fs::path target = fs::read_symlink(resolved, error);
    if (error) break;
    resolved = Resolved(resolved.parent_path() / target);  // an absolute target replaces
  }
  return resolved;
}

bool IsSameOrBelow(const fs::path& path, const fs::path& folder) {
  return std::mismatch(folder.begin(), folder.end(), path.begin(), path.end()).first ==
         folder.end();
}

}  // namespace

// An empty root is the working folder (a list named "pairs.tsv" has no
// parent); resolving "" would give "", which every path is below.
ListRoot::ListRoot(fs::path root)
    : root_(std::move(root)), resolved_(Resolved(root_.empty() ? fs::path(".") : root_)) {}

std::optional<std::string> ListRoot::Outside(std::string_view written) const {
  const std::string root = "the dataset root " + (root_.empty() ? "." : root_.string());
  const fs::path relative{std::string(written)};
  if (relative.has_root_path()) return "is absolute, not under " + root;
  const fs::path normal = relative.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") return "leaves " + root;
  const std::string outside = ", outside " + root;
  // Each component as the kernel walks it, so that the message names the
  // link that leads out; without links the lexical check above is the
  // whole answer.
  fs::path prefix = root_, shown;
  bool linked = false;
  for (auto part = relative.begin(); part != relative.end(); ++part) {
    prefix /= *part;
    shown /= *part;
    if (part->empty() || *part == "." || *part == "..") continue;
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(prefix, error))) continue;
    linked = true;
    const fs::path target = Destination(prefix);
    if (IsSameOrBelow(target, resolved_)) continue;
    if (std::next(part) == relative.end()) return "is a symlink to " + target.string() + outside;
    return "goes through " + shown.string() + ", a symlink to " + target.string() + outside;
  }
  if (linked) {
    // A link that stays inside may still be climbed out of: "in/../x" with
    // `in` linked to the root itself.
    const fs::path target = Destination(root_ / relative);
    if (!IsSameOrBelow(target, resolved_)) return "resolves to " + target.string() + outside;
  }
  return std::nullopt;
}

}  // namespace segfeed::dataset
