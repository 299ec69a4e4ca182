#pragma once

// How a dataset's sample key becomes the key of its members in a tar shard.
// WebDataset splits a member name at the first dot of its last path
// component ("a/b.c.jpg": key "a/b", extension "c.jpg"), so a key whose
// last component holds a dot ("img.v2", Cityscapes-like "x.y") would be cut
// short by every reader. The member key percent-encodes '.' as "%2E" and
// '%' as "%25" in the last component only (folder names may hold dots: the
// rule looks past the last '/'), which is reversible and leaves every other
// key unchanged. docs/shards.md states the rule.

#include <optional>
#include <string>
#include <string_view>

namespace segfeed::pack {

// The key members of `dataset_key` are named with.
std::string MemberKeyOf(std::string_view dataset_key);

// The inverse of MemberKeyOf().
std::string DatasetKeyOf(std::string_view member_key);

// Why `dataset_key` cannot name members of a tar, or nullopt when it can:
// an empty key or component, an absolute path, a "." or ".." component
// (readers refuse such names: nothing may look like a path outside the
// shard), or a name that is not UTF-8.
std::optional<std::string> UnusableKeyReason(std::string_view dataset_key);

}  // namespace segfeed::pack
