#include "core/glob.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace tessel::prof {

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative match with one backtrack point: the last '*' seen and where it started matching.
  std::size_t pi = 0, si = 0, star = std::string_view::npos, resume = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      resume = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool pattern_matches(std::string_view pattern, std::string_view name) {
  if (pattern.find_first_of("*?") != std::string_view::npos) return glob_match(pattern, name);
  return name.find(pattern) != std::string_view::npos;
}

namespace {

bool any_match(const std::vector<std::string>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return pattern_matches(p, name); });
}

void require_each_matches(const char* flag, const std::vector<std::string>& patterns,
                          const std::vector<std::string>& names, const std::vector<std::string>& catalogue) {
  for (const std::string& p : patterns) {
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return pattern_matches(p, n); })) continue;
    std::string sentence = std::string(flag) + "=" + p + ": no kernel compiled into this tessel-prof matches '" + p + "'";
    auto in_catalogue = std::count_if(catalogue.begin(), catalogue.end(),
                                      [&](const std::string& n) { return pattern_matches(p, n); });
    if (in_catalogue > 0) {
      sentence += "; " + std::to_string(in_catalogue) +
                  " kernel(s) of the catalogue do, but were not built: reconfigure with "
                  "-DTESSEL_PROF_KERNELS='" + p + "' and rebuild";
    } else {
      sentence += "; expected a name or glob such as 'tessel_sm80_gemm_bf16_*_tn' (run --mode=enumerate to list the " +
                  std::to_string(names.size()) + " compiled kernels)";
    }
    throw usage_error(sentence);
  }
}

}  // namespace

std::vector<std::string> select_names(const std::vector<std::string>& names,
                                      const std::vector<std::string>& include,
                                      const std::vector<std::string>& exclude,
                                      const std::vector<std::string>& catalogue) {
  require_each_matches("--kernels", include, names, catalogue);
  require_each_matches("--ignore-kernels", exclude, names, catalogue);
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if ((include.empty() || any_match(include, n)) && !any_match(exclude, n)) out.push_back(n);
  }
  return out;
}

}  // namespace tessel::prof
