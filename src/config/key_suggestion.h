#pragma once
// "did you mean ...?" for unknown config keys: the known key closest to a typo by edit distance
// (Damerau-Levenshtein, optimal string alignment: `brokerRoel` is one swap from `brokerRole`),
// case-insensitive, within a bound that grows with the key's length.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::config {

// Edits (insert, delete, substitute, swap adjacent) turning `a` into `b`, ignoring ASCII case.
size_t editDistance(std::string_view a, std::string_view b);
// The candidate nearest to `key` when it is close enough to be a likely typo; ties go to the
// earlier candidate.
std::optional<std::string> closestKey(std::string_view key, const std::vector<std::string>& candidates);

}  // namespace rmq::config
