#include "dataset/brace_pattern.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "segfeed/errors.h"

namespace segfeed::dataset {
namespace {

struct Brace {
  size_t open = std::string_view::npos;  // position of '{'
  size_t close = 0;                      // position of its '}'
};

Brace FirstBrace(std::string_view text) {
  Brace brace;
  brace.open = text.find('{');
  if (brace.open == std::string_view::npos) return brace;
  brace.close = text.find('}', brace.open);
  return brace;
}

bool AllDigits(std::string_view text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int64_t Number(std::string_view digits) {
  int64_t value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return value;
}

// The names one brace's inside stands for: a range or the alternatives.
std::vector<std::string> Alternatives(std::string_view inside, std::string_view pattern) {
  auto refuse = [pattern](const std::string& why) {
    return ConfigError("the shard pattern '" + std::string(pattern) + "' " + why);
  };
  std::vector<std::string> names;
  if (const size_t dots = inside.find(".."); dots != std::string_view::npos) {
    const std::string_view first = inside.substr(0, dots);
    const std::string_view last = inside.substr(dots + 2);
    if (!AllDigits(first) || !AllDigits(last))
      throw refuse("has a range {" + std::string(inside) + "} whose ends are not both numbers");
    const bool padded =
        (first.size() > 1 && first[0] == '0') || (last.size() > 1 && last[0] == '0');
    const size_t width = padded ? std::max(first.size(), last.size()) : 0;
    const int64_t from = Number(first);
    const int64_t to = Number(last);
    const int64_t step = from <= to ? 1 : -1;
    if ((to - from) * step >= static_cast<int64_t>(kMaxBraceNames))
      throw refuse("names more than " + std::to_string(kMaxBraceNames) + " shards");
    for (int64_t value = from;; value += step) {
      std::string text = std::to_string(value);
      if (text.size() < width) text.insert(0, width - text.size(), '0');
      names.push_back(std::move(text));
      if (value == to) break;
    }
    return names;
  }
  size_t begin = 0;
  while (true) {
    const size_t comma = inside.find(',', begin);
    names.emplace_back(inside.substr(begin, comma - begin));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (names.size() < 2 && names.front().empty()) throw refuse("has an empty brace {}");
  return names;
}

}  // namespace

bool HasBraces(std::string_view text) { return FirstBrace(text).open != std::string_view::npos; }

std::vector<std::string> ExpandBraces(std::string_view pattern) {
  std::vector<std::string> done;
  std::vector<std::string> pending = {std::string(pattern)};
  // Each round expands the first brace of every pending name, so the last
  // brace varies fastest; a name left without braces is done.
  while (!pending.empty()) {
    std::vector<std::string> next;
    for (const std::string& name : pending) {
      const Brace brace = FirstBrace(name);
      if (brace.open == std::string_view::npos) {
        done.push_back(name);
        continue;
      }
      if (brace.close == std::string_view::npos)
        throw ConfigError("the shard pattern '" + std::string(pattern) + "' has an unclosed {");
      const std::string_view view(name);
      const std::string_view inside = view.substr(brace.open + 1, brace.close - brace.open - 1);
      if (inside.find('{') != std::string_view::npos)
        throw ConfigError("the shard pattern '" + std::string(pattern) +
                          "' nests braces, which it does not expand");
      for (const std::string& alternative : Alternatives(inside, pattern)) {
        next.push_back(std::string(view.substr(0, brace.open)) + alternative +
                       std::string(view.substr(brace.close + 1)));
      }
      if (next.size() + done.size() > kMaxBraceNames)
        throw ConfigError("the shard pattern '" + std::string(pattern) + "' names more than " +
                          std::to_string(kMaxBraceNames) + " shards");
    }
    // Without nesting, every name has the pattern's braces, so all finish
    // in the same round and `done` keeps their order.
    pending = std::move(next);
  }
  return done;
}

}  // namespace segfeed::dataset
