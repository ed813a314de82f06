#include "config/key_suggestion.h"

#include <algorithm>
#include <cctype>

namespace rmq::config {

size_t editDistance(std::string_view a, std::string_view b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  const size_t n = a.size(), m = b.size();
  // Three rows: i-2, i-1, i (the swap case looks two rows back).
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::optional<std::string> closestKey(std::string_view key, const std::vector<std::string>& candidates) {
  // A third of the key's length, at least 1 and at most 4 edits: close enough to be a typo,
  // far enough apart that short keys are not matched to anything.
  const size_t bound = std::clamp<size_t>(key.size() / 3, 1, 4);
  std::optional<std::string> best;
  size_t bestDistance = bound + 1;
  for (const auto& c : candidates) {
    // The distance is at least the length difference: skip what cannot be within the bound
    // without the O(len * len) table (a megabyte-long unknown key cost seconds per candidate).
    size_t lengthGap = key.size() > c.size() ? key.size() - c.size() : c.size() - key.size();
    if (lengthGap >= bestDistance) continue;
    size_t d = editDistance(key, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace rmq::config
