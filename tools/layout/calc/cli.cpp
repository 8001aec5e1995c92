#include "cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <ostream>

#include "expression.hpp"
#include "svg.hpp"

namespace tessel::calc {

namespace {

char const* const kUsage =
    "usage: tessel-layout eval [--json] 'EXPR'\n"
    "       tessel-layout table 'EXPR'\n"
    "       tessel-layout draw 'EXPR' [-o FILE.svg] [--mark ROW,COL]\n"
    "\n"
    "EXPR is CuTe notation: layouts SHAPE:STRIDE such as ((2,2),8):((1,16),2) or 8:1,\n"
    "shapes such as (16,16) (a by-mode tiler), tilers [L0, L1], integers (n means n:1),\n"
    "and calls of the layout algebra, e.g. zipped_divide((256,128):(128,1), (16,16)).\n"
    "Functions:";

// Messages carry no control characters: a failure is exactly one line, even
// when it echoes a hostile argument back.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') c = ' ';
  }
  return s;
}

struct Options {
  std::string command, expr, output;
  bool json = false;
  std::optional<std::pair<std::int64_t, std::int64_t>> mark;
};

std::pair<std::int64_t, std::int64_t> parse_mark(std::string const& s) {
  auto comma = s.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument("");
    std::size_t a = 0, b = 0;
    std::int64_t r = std::stoll(s.substr(0, comma), &a), c = std::stoll(s.substr(comma + 1), &b);
    if (a != comma || b != s.size() - comma - 1) throw std::invalid_argument("");
    return {r, c};
  } catch (std::exception const&) {
    throw UsageError("--mark takes ROW,COL, e.g. --mark 37,44; got '" + s + "'");
  }
}

Options parse_args(std::vector<std::string> const& args) {
  if (args.empty()) throw UsageError("no command; try tessel-layout --help");
  Options o;
  o.command = args[0];
  if (o.command != "eval" && o.command != "draw" && o.command != "table") {
    throw UsageError("unknown command '" + o.command + "'; expected eval, table or draw");
  }
  std::vector<std::string> words;
  for (std::size_t k = 1; k < args.size(); ++k) {
    std::string const& a = args[k];
    if (a == "--json" && o.command == "eval") {
      o.json = true;
    } else if ((a == "-o" || a == "--output") && o.command == "draw") {
      if (++k == args.size()) throw UsageError(a + " needs a file name");
      o.output = args[k];
    } else if (a == "--mark" && o.command == "draw") {
      if (++k == args.size()) throw UsageError("--mark needs ROW,COL");
      o.mark = parse_mark(args[k]);
    } else if (a.size() > 1 && a[0] == '-' && !std::isdigit(static_cast<unsigned char>(a[1]))) {
      throw UsageError("unknown option '" + a + "' for " + o.command);
    } else {
      words.push_back(a);
    }
  }
  if (words.empty()) throw UsageError(o.command + " needs an expression");
  // An unquoted expression split by the shell is joined back together.
  for (std::size_t k = 0; k < words.size(); ++k) o.expr += (k ? " " : "") + words[k];
  return o;
}

// The algebra says which product or sum left 64 bits; this says what to do
// about it, so the refusal is complete.
std::string overflow_hint(std::string_view what) {
  if (what.find("integer overflow") == std::string_view::npos) return {};
  return "; use smaller extents or strides (every size, cosize and index must fit in 64 bits)";
}

// Writes `content` to `path`, checking every step: a full disk or an
// unwritable path is a refusal that says why, not a silently short file.
void write_file(std::string const& path, std::string const& content) {
  auto fail = [&](int error) {
    throw std::runtime_error("cannot write '" + path + "': " + std::strerror(error) + "; pass -o a writable file");
  };
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) fail(errno);
  bool const written = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0;
  int const error = errno;
  if (std::fclose(f) != 0 && written) fail(errno);
  if (!written) fail(error);
}

}  // namespace

int run(std::vector<std::string> const& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
    out << kUsage;
    for (auto const& n : function_names()) out << ' ' << n;
    out << "\n";
    return kExitOk;
  }
  try {
    Options o = parse_args(args);
    if (o.command == "eval") {
      Value v = evaluate(o.expr);
      out << (o.json ? to_json(v) : to_text(v)) << "\n";
    } else if (o.command == "table") {
      Value v = evaluate(o.expr);
      if (v.kind == Value::Kind::Int) v = Value::of_layout(rt::Layout(v.i, 1));  // n means n:1
      if (v.kind != Value::Kind::Layout) {
        throw UsageError("table needs a layout, not " + kind_name(v.kind) + " " + to_text(v));
      }
      out << rt::print_layout(v.layout);
    } else {
      std::string svg = draw_svg(o.expr, DrawOptions{o.mark});
      if (o.output.empty()) {
        out << svg;
      } else {
        write_file(o.output, svg);
      }
    }
    return kExitOk;
  } catch (ParseError const& e) {
    err << "tessel-layout: parse error at " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (UsageError const& e) {
    err << "tessel-layout: " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (rt::Error const& e) {
    err << "tessel-layout: " << one_line(e.what()) << overflow_hint(e.what()) << "\n";
    return kExitAlgebra;
  } catch (std::bad_alloc const&) {
    err << "tessel-layout: out of memory\n";
    return kExitAlgebra;
  } catch (std::exception const& e) {
    err << "tessel-layout: " << one_line(e.what()) << "\n";
    return kExitAlgebra;
  }
}

}  // namespace tessel::calc
