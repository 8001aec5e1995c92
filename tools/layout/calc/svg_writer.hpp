#pragma once
// A minimal SVG writer: rectangles, text, lines and an arrow head.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>

#include <tessel/layout/runtime.hpp>

namespace tessel::calc {

class SvgWriter {
 public:
  // A picture whose body would pass max_bytes is refused (rt::Error with
  // `refusal`) as soon as it does, so memory stays bounded too.
  SvgWriter(std::size_t max_bytes, std::string refusal) : max_bytes_(max_bytes), refusal_(std::move(refusal)) {}

  void rect(double x, double y, double w, double h, std::string const& fill, std::string const& stroke = "none",
            double stroke_width = 0) {
    body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
             "\" fill=\"" + fill + "\"";
    if (stroke != "none") body_ += " stroke=\"" + stroke + "\" stroke-width=\"" + num(stroke_width) + "\"";
    body_ += "/>\n";
    grow(x + w, y + h);
    check_size();
  }

  // anchor: start, middle or end.
  void text(double x, double y, double size, std::string const& s, std::string const& anchor = "start",
            std::string const& weight = "normal") {
    body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" +
             anchor + "\" font-weight=\"" + weight + "\">" + escape(s) + "</text>\n";
    check_size();
    double w = 0.66 * size * static_cast<double>(s.size());  // generous: bold monospace runs wider than 0.6 em
    grow(anchor == "start" ? x + w : anchor == "middle" ? x + w / 2 : x, y + size * 0.3);
  }

  void line(double x1, double y1, double x2, double y2, std::string const& stroke, double width) {
    body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
             "\" stroke=\"" + stroke + "\" stroke-width=\"" + num(width) + "\"/>\n";
    grow(std::max(x1, x2), std::max(y1, y2));
  }

  // A horizontal arrow from (x1,y) to (x2,y).
  void arrow(double x1, double x2, double y) {
    line(x1, y, x2 - 10, y, "#333", 2.5);
    body_ += "<path d=\"M" + num(x2) + "," + num(y) + " L" + num(x2 - 14) + "," + num(y - 7) + " L" + num(x2 - 14) +
             "," + num(y + 7) + " Z\" fill=\"#333\"/>\n";
  }

  std::string finish(double margin = 40) const {
    double w = width_ + margin, h = height_ + margin;
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) +
           "\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\" font-family=\"DejaVu Sans Mono, monospace\">\n" +
           "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body_ + "</svg>\n";
  }

  static std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

 private:
  static std::string escape(std::string const& s) {
    std::string out;
    for (char c : s) {
      if (c == '<') out += "&lt;";
      else if (c == '>') out += "&gt;";
      else if (c == '&') out += "&amp;";
      else out += c;
    }
    return out;
  }
  void check_size() const {
    if (body_.size() > max_bytes_) throw rt::Error(refusal_);
  }
  void grow(double x, double y) {
    width_ = std::max(width_, x);
    height_ = std::max(height_, y);
  }

  std::size_t max_bytes_;
  std::string refusal_;
  std::string body_;
  double width_ = 0, height_ = 0;
};

}  // namespace tessel::calc
