#include "svg.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "expression.hpp"
#include "svg_writer.hpp"

namespace tessel::calc {

namespace {

using Cell = std::pair<std::int64_t, std::int64_t>;

// Twelve light colours; dark text stays readable on all of them.
char const* const kPalette[12] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                  "#b3de69", "#fccde5", "#a6cee3", "#bc80bd", "#ccebc5", "#ffed6f"};
char const* const kGrey = "#e6e6e6";

std::string digits_of(std::int64_t v) { return std::to_string(v); }

struct Grid {
  std::int64_t rows = 0, cols = 0;
  std::function<std::int64_t(std::int64_t, std::int64_t)> label;
  std::function<std::string(std::int64_t, std::int64_t)> fill;
  std::optional<Cell> mark;
};

struct Geometry {
  bool labelled = false;
  double cell_w = 0, cell_h = 0, font = 11, left = 0, top = 0;
};

// How to draw less, said by every size refusal.
char const* const kDrawLess = "draw a smaller layout, e.g. one block of it with composition(L, (64,64)) or one mode with layout(L, 0)";

void check_cells(std::int64_t rows, std::int64_t cols) {
  if (rows > kMaxCells / std::max<std::int64_t>(cols, 1)) {
    throw rt::Error("draw: a grid of " + std::to_string(rows) + "x" + std::to_string(cols) +
                    " cells is more than the " + std::to_string(kMaxCells) + " cells drawn at most; " + kDrawLess);
  }
}

// A picture that refuses to grow past kMaxSvgBytes.
SvgWriter picture() {
  return SvgWriter(kMaxSvgBytes, "draw: the picture would be larger than " + std::to_string(kMaxSvgBytes >> 20) +
                                     " MiB (a rectangle for nearly every cell); " + kDrawLess);
}

// Sizes a grid: labelled cells wide enough for their numbers, or, for large
// grids, small unlabelled cells fitting within max_px.
Geometry measure(Grid const& g, double max_px) {
  check_cells(g.rows, g.cols);
  Geometry m;
  m.labelled = g.rows <= kMaxLabelled && g.cols <= kMaxLabelled;
  if (m.labelled) {
    std::size_t d = 1;
    for (std::int64_t r = 0; r < g.rows; ++r)
      for (std::int64_t c = 0; c < g.cols; ++c) d = std::max(d, digits_of(g.label(r, c)).size());
    m.cell_w = std::max(22.0, 0.6 * m.font * static_cast<double>(d) + 8);
    m.cell_h = 20;
    m.left = 0.6 * m.font * static_cast<double>(digits_of(g.rows - 1).size()) + 8;
    m.top = 16;
  } else {
    double c = std::clamp(max_px / static_cast<double>(std::max(g.rows, g.cols)), 1.0, 12.0);
    m.cell_w = m.cell_h = c;
  }
  return m;
}

double grid_width(Grid const& g, Geometry const& m) { return m.left + m.cell_w * static_cast<double>(g.cols); }
double grid_height(Grid const& g, Geometry const& m) { return m.top + m.cell_h * static_cast<double>(g.rows); }

void draw(SvgWriter& svg, double x, double y, Grid const& g, Geometry const& m) {
  double gx = x + m.left, gy = y + m.top;
  if (m.labelled) {
    for (std::int64_t c = 0; c < g.cols; ++c) {
      svg.text(gx + (static_cast<double>(c) + 0.5) * m.cell_w, y + 11, 9, std::to_string(c), "middle");
    }
    for (std::int64_t r = 0; r < g.rows; ++r) {
      svg.text(gx - 4, gy + (static_cast<double>(r) + 0.5) * m.cell_h + 3, 9, std::to_string(r), "end");
    }
  }
  if (m.labelled) {
    for (std::int64_t r = 0; r < g.rows; ++r) {
      double cy = gy + static_cast<double>(r) * m.cell_h;
      for (std::int64_t c = 0; c < g.cols; ++c) {
        double cx = gx + static_cast<double>(c) * m.cell_w;
        svg.rect(cx, cy, m.cell_w, m.cell_h, g.fill(r, c), "#777", 0.6);
        svg.text(cx + m.cell_w / 2, cy + m.cell_h / 2 + m.font * 0.35, m.font, std::to_string(g.label(r, c)), "middle");
      }
    }
  } else {
    // Unlabelled cells are merged into runs of equal colour along a row, and
    // rows with the same runs into one band: a 256x128 matrix of 16x16 tiles
    // becomes 128 rectangles instead of 32768.
    using Run = std::pair<std::int64_t, std::string>;  // (end column, colour)
    auto runs_of = [&](std::int64_t r) {
      std::vector<Run> runs;
      for (std::int64_t c = 0; c < g.cols; ++c) {
        std::string f = g.fill(r, c);
        if (!runs.empty() && runs.back().second == f) {
          runs.back().first = c + 1;
        } else {
          runs.emplace_back(c + 1, f);
        }
      }
      return runs;
    };
    std::int64_t r = 0;
    while (r < g.rows) {
      std::vector<Run> runs = runs_of(r);
      std::int64_t e = r + 1;
      while (e < g.rows && runs_of(e) == runs) ++e;
      std::int64_t c = 0;
      for (auto const& [end, f] : runs) {
        svg.rect(gx + static_cast<double>(c) * m.cell_w, gy + static_cast<double>(r) * m.cell_h,
                 static_cast<double>(end - c) * m.cell_w, static_cast<double>(e - r) * m.cell_h, f);
        c = end;
      }
      r = e;
    }
  }
  if (!m.labelled) {
    svg.rect(gx, gy, m.cell_w * static_cast<double>(g.cols), m.cell_h * static_cast<double>(g.rows), "none", "#555", 1);
  }
  if (g.mark) {
    double w = std::max(m.cell_w, 7.0), h = std::max(m.cell_h, 7.0);
    svg.rect(gx + static_cast<double>(g.mark->second) * m.cell_w - (w - m.cell_w) / 2,
             gy + static_cast<double>(g.mark->first) * m.cell_h - (h - m.cell_h) / 2, w, h, "none", "#d62728", 2.5);
  }
}

void check_mark(std::optional<Cell> const& mark, std::int64_t rows, std::int64_t cols) {
  if (mark && (mark->first < 0 || mark->first >= rows || mark->second < 0 || mark->second >= cols)) {
    throw UsageError("draw: --mark " + std::to_string(mark->first) + "," + std::to_string(mark->second) +
                     " is outside the " + std::to_string(rows) + "x" + std::to_string(cols) + " grid");
  }
}

rt::Layout as_layout(Value const& v, Node const& n) {
  if (v.kind == Value::Kind::Layout) return v.layout;
  if (v.kind == Value::Kind::Int) return rt::Layout(v.i, 1);
  throw UsageError("column " + std::to_string(n.column()) + ": draw needs a layout, not " + kind_name(v.kind) + " " +
                   to_text(v));
}

// A plain grid: rank-1 layouts as one column, as CuTe's pictures do.
std::string draw_layout(rt::Layout const& l, std::string_view expr, DrawOptions const& opt) {
  if (rt::rank(l) > 2) {
    throw UsageError("draw: " + rt::to_string(l) + " has rank " + std::to_string(rt::rank(l)) +
                     "; only rank-1 and rank-2 layouts can be drawn (group or select modes first)");
  }
  rt::Layout two = rt::rank(l) == 2 ? l : rt::make_layout(l, rt::Layout(1, 0));
  rt::Layout r = rt::layout(two, 0), c = rt::layout(two, 1);
  Grid g;
  g.rows = rt::size(r);
  g.cols = rt::size(c);
  g.label = [&](std::int64_t i, std::int64_t j) { return rt::detail::add(r(i), c(j)); };
  g.fill = [&](std::int64_t i, std::int64_t j) {
    std::int64_t v = rt::detail::add(r(i), c(j));
    return std::string(kPalette[((v % 8) + 8) % 8]);
  };
  check_mark(opt.mark, g.rows, g.cols);
  g.mark = opt.mark;
  SvgWriter svg = picture();
  svg.text(20, 28, 15, std::string(expr), "start", "bold");
  svg.text(20, 48, 13, "= " + rt::to_string(l));
  Geometry m = measure(g, 900);
  draw(svg, 20, 62, g, m);
  if (opt.mark) {
    svg.text(20, 62 + grid_height(g, m) + 24, 12,
             "(" + std::to_string(opt.mark->first) + "," + std::to_string(opt.mark->second) + ") -> index " +
                 std::to_string(g.label(opt.mark->first, opt.mark->second)));
  }
  return svg.finish();
}

bool is_divide(std::string const& name) {
  return name == "logical_divide" || name == "zipped_divide" || name == "tiled_divide" || name == "flat_divide";
}

// The two-mode tiler of a divide's second argument, if it is one.
std::optional<rt::Tiler> two_mode_tiler(Value const& t) {
  rt::Tiler out;
  auto elem = [](Value const& e) { return e.kind == Value::Kind::Int ? rt::make_layout(e.i) : e.layout; };
  if (t.kind == Value::Kind::Shape && t.tuple.rank() == 2 && t.tuple[0].is_leaf() && t.tuple[1].is_leaf()) {
    out = {rt::make_layout(t.tuple[0]), rt::make_layout(t.tuple[1])};
  } else if (t.kind == Value::Kind::Tiler && t.elems.size() == 2) {
    out = {elem(t.elems[0]), elem(t.elems[1])};
  } else {
    return std::nullopt;
  }
  return out;
}

// Where each 1-D coordinate m of a mode of A lands: (tile, position in tile).
struct ModeSplit {
  std::vector<std::int64_t> tile, pos;
};

ModeSplit split_mode(rt::Layout const& a_mode, rt::Layout const& t) {
  rt::Layout bb = rt::make_layout(t, rt::complement(t, a_mode.shape));
  // Every position of the tiler and its complement is visited: refuse a
  // tiler far larger than the mode before walking it.
  if (rt::size(bb) > kMaxCells) {
    throw rt::Error("draw: the tiler " + rt::to_string(t) + " covers " + std::to_string(rt::size(bb)) +
                    " positions of a mode of size " + std::to_string(rt::size(a_mode)) + ", more than the " +
                    std::to_string(kMaxCells) + " cells drawn at most; use a tiler no larger than the layout");
  }
  std::int64_t n = rt::size(a_mode);
  ModeSplit s{std::vector<std::int64_t>(static_cast<std::size_t>(n), -1),
              std::vector<std::int64_t>(static_cast<std::size_t>(n), -1)};
  rt::Layout in = rt::layout(bb, 0), across = rt::layout(bb, 1);
  for (std::int64_t j = 0; j < rt::size(across); ++j)
    for (std::int64_t i = 0; i < rt::size(in); ++i) {
      std::int64_t m = rt::detail::add(in(i), across(j));
      if (m >= 0 && m < n) {
        s.tile[static_cast<std::size_t>(m)] = j;
        s.pos[static_cast<std::size_t>(m)] = i;
      }
    }
  return s;
}

std::string tile_colour(std::int64_t j0, std::int64_t j1) {
  // Tiles within 3 rows or 4 columns of each other differ in colour, so
  // interleaved tiles (a strided tiler) stay apart too.
  if (j0 < 0 || j1 < 0) return "white";
  return kPalette[(j0 % 3) * 4 + (j1 % 4)];
}

std::string cell(std::int64_t a, std::int64_t b) { return "(" + std::to_string(a) + "," + std::to_string(b) + ")"; }

std::string draw_divide(Node const& call, rt::Layout const& a, rt::Tiler const& t, std::string_view expr,
                        DrawOptions const& opt) {
  rt::Layout result = evaluate(call).layout;  // the requested divide, as printed
  rt::Layout zd = rt::zipped_divide(a, t);
  rt::Layout tile = rt::layout(zd, 0), rest = rt::layout(zd, 1);
  rt::Layout t0 = rt::layout(tile, 0), t1 = rt::layout(tile, 1);
  rt::Layout r0 = rt::layout(rest, 0), r1 = rt::layout(rest, 1);
  // Refuse any oversized panel (the matrix, one tile, the tile grid) before
  // a cell of any is walked or a per-row table sized for it.
  check_cells(rt::size(a, 0), rt::size(a, 1));
  check_cells(rt::size(t0), rt::size(t1));
  check_cells(rt::size(r0), rt::size(r1));
  ModeSplit s0 = split_mode(rt::layout(a, 0), t[0]);
  ModeSplit s1 = split_mode(rt::layout(a, 1), t[1]);

  Grid mat;
  mat.rows = rt::size(a, 0);
  mat.cols = rt::size(a, 1);
  rt::Layout a0 = rt::layout(a, 0), a1 = rt::layout(a, 1);
  mat.label = [&](std::int64_t i, std::int64_t j) { return rt::detail::add(a0(i), a1(j)); };
  mat.fill = [&](std::int64_t i, std::int64_t j) {
    return tile_colour(s0.tile[static_cast<std::size_t>(i)], s1.tile[static_cast<std::size_t>(j)]);
  };
  check_mark(opt.mark, mat.rows, mat.cols);
  mat.mark = opt.mark;

  Grid tg;
  tg.rows = rt::size(t0);
  tg.cols = rt::size(t1);
  tg.label = [&](std::int64_t i, std::int64_t j) { return rt::detail::add(t0(i), t1(j)); };
  tg.fill = [](std::int64_t, std::int64_t) { return std::string(kGrey); };

  Grid rg;
  rg.rows = rt::size(r0);
  rg.cols = rt::size(r1);
  rg.label = [&](std::int64_t i, std::int64_t j) { return rt::detail::add(r0(i), r1(j)); };
  rg.fill = [](std::int64_t i, std::int64_t j) { return tile_colour(i, j); };

  std::int64_t mi0 = -1, mi1 = -1, mj0 = -1, mj1 = -1;
  if (opt.mark) {
    auto m0 = static_cast<std::size_t>(opt.mark->first), m1 = static_cast<std::size_t>(opt.mark->second);
    mi0 = s0.pos[m0];
    mi1 = s1.pos[m1];
    mj0 = s0.tile[m0];
    mj1 = s1.tile[m1];
    if (mi0 >= 0 && mi1 >= 0) tg.mark = Cell{mi0, mi1};
    if (mj0 >= 0 && mj1 >= 0) rg.mark = Cell{mj0, mj1};
  }

  SvgWriter svg = picture();
  svg.text(20, 28, 15, std::string(expr), "start", "bold");
  svg.text(20, 48, 13, "= " + rt::to_string(result));

  double top = 90;
  Geometry mm = measure(mat, 720);
  svg.text(20, top - 10, 13, "A = " + rt::to_string(a), "start", "bold");
  draw(svg, 20, top, mat, mm);
  double mat_right = 20 + grid_width(mat, mm), mat_bottom = top + grid_height(mat, mm);
  if (opt.mark) {
    svg.text(20, mat_bottom + 22, 12, "A" + cell(opt.mark->first, opt.mark->second) + " = " +
                                          std::to_string(mat.label(opt.mark->first, opt.mark->second)));
  }

  std::string label = call.name + "(A, " + std::string(expr.substr(call.args[1].begin, call.args[1].end - call.args[1].begin)) + ")";
  double arrow_w = std::max(200.0, 0.6 * 13 * static_cast<double>(label.size()) + 30);
  double ax = mat_right + 30, ay = top + std::min(120.0, grid_height(mat, mm) / 2);
  svg.text(ax + arrow_w / 2, ay - 12, 13, label, "middle");
  svg.arrow(ax, ax + arrow_w, ay);

  double px = ax + arrow_w + 30;
  Geometry tm = measure(tg, 480);
  svg.text(px, top - 10, 13, "mode 0, one tile: layout<0> = " + rt::to_string(tile), "start", "bold");
  draw(svg, px, top, tg, tm);
  double y = top + grid_height(tg, tm) + 22;
  svg.text(px, y, 12,
           std::to_string(rt::size(tile)) + " elements" + (tg.mark ? ", the marked one at " + cell(mi0, mi1) : std::string()));

  double ry = y + 50;
  Geometry rm = measure(rg, 480);
  svg.text(px, ry - 10, 13, "mode 1, the tile grid: layout<1> = " + rt::to_string(rest), "start", "bold");
  draw(svg, px, ry, rg, rm);
  y = ry + grid_height(rg, rm) + 22;
  std::string note = std::to_string(rt::size(rest)) + " tiles, each labelled with the index it starts at";
  if (rg.mark && tg.mark) {
    note = "tile " + cell(mj0, mj1) + " starts at " + std::to_string(rg.label(mj0, mj1)) + "; + " +
           std::to_string(tg.label(mi0, mi1)) + " inside the tile = " +
           std::to_string(rg.label(mj0, mj1) + tg.label(mi0, mi1));
  }
  svg.text(px, y, 12, note);
  return svg.finish();
}

}  // namespace

std::string draw_svg(std::string_view expr, DrawOptions const& opt) {
  Node root = parse(expr);
  if (root.kind == Node::Kind::Call && is_divide(root.name) && root.args.size() == 2) {
    Value av = evaluate(root.args[0]);
    Value tv = evaluate(root.args[1]);
    if (av.kind == Value::Kind::Layout && rt::rank(av.layout) == 2) {
      if (auto t = two_mode_tiler(tv)) return draw_divide(root, av.layout, *t, expr, opt);
    }
  }
  return draw_layout(as_layout(evaluate(root), root), expr, opt);
}

}  // namespace tessel::calc
