// Copyright spate authors.
#include "progress_bar.h"

#include <unistd.h>

namespace spate::cli {

ConsoleProgressBar::ConsoleProgressBar(int fd, int64_t delay_ms, int64_t update_ms,
                                       int width)
    : fd_(fd), delay_ms_(delay_ms), update_ms_(update_ms), width_(width) {
  if (::isatty(fd) != 1) return;
  active_ = true;
  exec::SetProgressReporter([this](const exec::StageProgress& p) { OnProgress(p); });
}

ConsoleProgressBar::~ConsoleProgressBar() {
  if (!active_) return;
  exec::SetProgressReporter(nullptr);
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) Write("\r" + std::string(static_cast<size_t>(width_), ' ') + "\r");
}

std::string ConsoleProgressBar::Render(
    const std::map<int64_t, exec::StageProgress>& stages, int width) {
  if (stages.empty()) return "";
  const int64_t each = width / static_cast<int64_t>(stages.size());
  std::string out;
  for (const auto& [id, s] : stages) {
    const std::string header = "[Stage " + std::to_string(id) + ":";
    const std::string tailer = "(" + std::to_string(s.done) + " + " +
                               std::to_string(s.running) + ") / " +
                               std::to_string(s.total) + "]";
    const int64_t w = each - static_cast<int64_t>(header.size() + tailer.size());
    std::string bar;
    if (w > 0) {
      const int64_t percent = s.total > 0 ? w * s.done / s.total : 0;
      for (int64_t i = 0; i < w; ++i) bar += i < percent ? '=' : i == percent ? '>' : ' ';
    }
    out += header + bar + tailer;
  }
  return out;
}

void ConsoleProgressBar::Write(const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void ConsoleProgressBar::OnProgress(const exec::StageProgress& p) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (p.finished) {
    stages_.erase(p.stage_id);
    started_.erase(p.stage_id);
  } else {
    stages_[p.stage_id] = p;
    started_.emplace(p.stage_id, now);
  }
  // The stages running for longer than the first delay.
  std::map<int64_t, exec::StageProgress> shown;
  for (const auto& [id, s] : stages_) {
    if (now - started_[id] >= std::chrono::milliseconds(delay_ms_)) shown.emplace(id, s);
  }
  if (shown.empty()) {
    if (drawn_) {
      Write("\r" + std::string(static_cast<size_t>(width_), ' ') + "\r");
      drawn_ = false;
    }
    return;
  }
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(update_ms_)) return;
  Write("\r" + Render(shown, width_));
  drawn_ = true;
  last_draw_ = now;
}

}  // namespace spate::cli
