#pragma once
// Random layouts and reference evaluations for the run-time algebra tests.
#include <tessel/layout/runtime.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

namespace rt_testing {

using namespace tessel::rt;

// A(x) with A's last leaf unbounded: how composition reads A past its size.
// Every leaf but the last takes x modulo its extent, the last takes the rest.
inline std::int64_t eval_unbounded(Layout const& a, std::int64_t x) {
  auto s = leaves(a.shape);
  auto d = leaves(a.stride);
  std::int64_t idx = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    idx += (x % s[i]) * d[i];
    x /= s[i];
  }
  return idx + x * d.back();
}

// Whether A, its last leaf unbounded, reaches offset v: v = low + y * d_last for an offset `low`
// of the other leaves and some y >= 0.
inline bool reaches_unbounded(Layout const& a, std::int64_t v) {
  auto s = leaves(a.shape);
  auto d = leaves(a.stride);
  std::vector<std::int64_t> low{0};
  for (std::size_t k = 0; k + 1 < s.size(); ++k) {
    std::vector<std::int64_t> next;
    for (auto o : low)
      for (std::int64_t x = 0; x < s[k]; ++x) next.push_back(o + x * d[k]);
    low.swap(next);
  }
  for (auto o : low) {
    std::int64_t const t = v - o;
    if (d.back() == 0 ? t == 0 : t % d.back() == 0 && t / d.back() >= 0) return true;
  }
  return false;
}

inline std::vector<std::int64_t> values(Layout const& l) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < size(l); ++i) v.push_back(l(i));
  return v;
}

inline bool is_injective(Layout const& l) {
  auto v = values(l);
  std::set<std::int64_t> s(v.begin(), v.end());
  return s.size() == v.size();
}

// True when l maps [0, size) one-to-one onto [0, size).
inline bool is_bijection_onto_prefix(Layout const& l) {
  auto v = values(l);
  std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != static_cast<std::int64_t>(i)) return false;
  }
  return true;
}

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  // Extents 1..6, 1 occasionally.
  std::int64_t extent() { return coin(0.15) ? 1 : uniform(2, 6); }

  // Wraps a flat list of leaves into a random nesting with the same leaf order.
  IntTuple nest(std::vector<IntTuple> const& leaves, int depth = 0) {
    if (leaves.size() == 1 && (depth > 0 || coin(0.6))) return leaves[0];
    std::vector<IntTuple> out;
    std::size_t i = 0;
    while (i < leaves.size()) {
      std::size_t n = (depth < 2 && coin(0.35)) ? static_cast<std::size_t>(uniform(1, 3)) : 1;
      n = std::min(n, leaves.size() - i);
      std::vector<IntTuple> part(leaves.begin() + static_cast<std::ptrdiff_t>(i),
                                 leaves.begin() + static_cast<std::ptrdiff_t>(i + n));
      out.push_back(n == 1 ? part[0] : nest(part, depth + 1));
      i += n;
    }
    return IntTuple::tuple(std::move(out));
  }

  // The same nesting as `like`, with the given leaf values.
  static IntTuple refill(IntTuple const& like, std::vector<std::int64_t> const& v, std::size_t& k) {
    if (like.is_leaf()) return v[k++];
    std::vector<IntTuple> out;
    for (auto const& e : like.elems()) out.push_back(refill(e, v, k));
    return IntTuple::tuple(std::move(out));
  }

  Layout from_flat(std::vector<std::int64_t> const& s, std::vector<std::int64_t> const& d) {
    std::vector<IntTuple> ls(s.begin(), s.end());
    IntTuple shape = nest(ls);
    std::size_t k = 0;
    IntTuple stride = refill(shape, d, k);
    return Layout(shape, stride);
  }

  // Anything: random extents and strides in [0, 40], random nesting.
  Layout any(int max_leaves = 4) {
    auto n = static_cast<std::size_t>(uniform(1, max_leaves));
    std::vector<std::int64_t> s(n), d(n);
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = extent();
      d[i] = coin(0.15) ? 0 : uniform(1, 40);
    }
    return from_flat(s, d);
  }

  // Injective, with every stride a multiple of the extent below it (so the
  // complement fills its holes exactly): visit the leaves in a random order,
  // giving each the covered extent times a gap of 1..3.
  Layout injective(int max_leaves = 4, int max_gap = 3) {
    auto n = static_cast<std::size_t>(uniform(1, max_leaves));
    std::vector<std::int64_t> s(n), d(n);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    std::int64_t covered = 1;
    for (auto i : order) {
      s[i] = uniform(2, 5);
      d[i] = covered * uniform(1, max_gap);
      covered = d[i] * s[i];
    }
    return from_flat(s, d);
  }

  // A compact layout: a permutation of [0, size).
  Layout compact(int max_leaves = 4) { return injective(max_leaves, 1); }

  // A compact layout of exactly `r` top-level modes.
  Layout compact_rank(int r) {
    std::vector<Layout> modes;
    for (int i = 0; i < r; ++i) modes.push_back(compact(2));
    // Re-stride the concatenation so the whole is a permutation of [0, size).
    Layout cat = make_layout(modes);
    auto s = leaves(cat.shape);
    std::vector<std::size_t> order(s.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<std::int64_t> d(s.size());
    std::int64_t covered = 1;
    for (auto i : order) {
      d[i] = covered;
      covered *= s[i];
    }
    std::size_t k = 0;
    return Layout(cat.shape, refill(cat.shape, d, k));
  }

  // A random permutation layout of exactly `total` elements over a random
  // factorisation of total into extents.
  Layout compact_of_size(std::int64_t total) {
    std::vector<std::int64_t> s;
    while (total > 1) {
      std::vector<std::int64_t> divs;
      for (std::int64_t f = 2; f <= total; ++f) {
        if (total % f == 0) divs.push_back(f);
      }
      std::int64_t f = divs[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(divs.size()) - 1))];
      s.push_back(f);
      total /= f;
    }
    if (s.empty()) s.push_back(1);
    std::vector<std::size_t> order(s.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<std::int64_t> d(s.size());
    std::int64_t covered = 1;
    for (auto i : order) {
      d[i] = covered;
      covered *= s[i];
    }
    return from_flat(s, d);
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

}  // namespace rt_testing
