#include "procmgr/output.hpp"

#include <utility>

namespace mptrain::procmgr {

LineTagger::LineTagger(std::string prefix, std::size_t max_line) : prefix_(std::move(prefix)), max_line_(max_line) {}

void LineTagger::emit(std::string_view line, std::string& out) const {
  out += prefix_;
  out += line;
  out += '\n';
}

void LineTagger::feed(std::string_view data, std::string& out) {
  while (!data.empty()) {
    const auto newline = data.find('\n');
    if (newline == std::string_view::npos) {
      partial_ += data;
      break;
    }
    if (partial_.empty()) {
      emit(data.substr(0, newline), out);
    } else {
      partial_ += data.substr(0, newline);
      emit(partial_, out);
      partial_.clear();
    }
    data.remove_prefix(newline + 1);
  }
  if (partial_.size() > max_line_) {
    emit(partial_, out);
    partial_.clear();
  }
}

void LineTagger::finish(std::string& out) {
  if (partial_.empty()) return;
  emit(partial_, out);
  partial_.clear();
}

TailBuffer::TailBuffer(std::size_t max_lines, std::size_t max_line) : max_lines_(max_lines), max_line_(max_line) {}

void TailBuffer::push(std::string line) {
  if (line.size() > max_line_) line.resize(max_line_);
  lines_.push_back(std::move(line));
  while (lines_.size() > max_lines_) lines_.pop_front();
}

void TailBuffer::feed(std::string_view data) {
  while (!data.empty()) {
    const auto newline = data.find('\n');
    if (newline == std::string_view::npos) {
      if (partial_.size() < max_line_) partial_ += data.substr(0, max_line_ - partial_.size());
      break;
    }
    partial_ += data.substr(0, newline);
    push(std::exchange(partial_, std::string()));
    data.remove_prefix(newline + 1);
  }
}

std::string TailBuffer::text() const {
  std::string text;
  for (const auto& line : lines_) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  if (!partial_.empty()) {
    if (!text.empty()) text += '\n';
    text += partial_;
  }
  return text;
}

}  // namespace mptrain::procmgr
