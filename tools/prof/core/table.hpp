#pragma once
// A plain-text table for the terminal: columns padded to their widest cell, text left-aligned,
// numbers right-aligned, two spaces between columns.

#include <string>
#include <vector>

namespace tessel::prof {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render() const;
  std::size_t size() const { return rows_.size(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tessel::prof
