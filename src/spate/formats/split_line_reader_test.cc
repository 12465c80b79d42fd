// Copyright spate authors.
// SplitLineReader hands out exactly the lines ReadSplitText gives a split, whatever the
// window size, separator and split boundaries. (Separators that overlap themselves, like
// "||" in "a||||b", are tokenized left to right here; ReadSplitText may cut them
// differently at a split end, so the comparison uses non-overlapping ones.)

#include <gtest/gtest.h>

#include <random>

#include "spate/formats/file_index.h"

namespace spate::formats {
namespace {

std::vector<std::string> ExpectedLines(io::FileSystem& fs, const std::string& path,
                                       int64_t start, int64_t end, int64_t size,
                                       const std::string& sep, bool strip_cr) {
  std::string text = ReadSplitText(fs, path, start, end, size, sep).value();
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t p = text.find(sep, pos);
    size_t stop = p == std::string::npos ? text.size() : p;
    std::string line = text.substr(pos, stop - pos);
    if (strip_cr && !line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
    if (p == std::string::npos) break;
    pos = p + sep.size();
  }
  return out;
}

std::vector<std::string> WindowLines(io::FileSystem& fs, const std::string& path,
                                     int64_t start, int64_t end, int64_t size,
                                     const std::string& sep, bool strip_cr,
                                     int64_t window, size_t batch) {
  auto r =
      SplitLineReader::Open(fs, path, start, end, size, sep, strip_cr, window).value();
  std::vector<std::string> out;
  std::vector<std::string_view> lines;
  while (true) {
    Result<bool> more = r->NextLines(batch, &lines);
    EXPECT_TRUE(more.ok());
    if (!more.ok()) break;
    EXPECT_LE(lines.size(), batch);
    for (auto l : lines) out.emplace_back(l);
    if (!*more) break;
  }
  return out;
}

TEST(SplitLineReaderTest, MatchesReadSplitTextForEverySplitAndWindow) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  std::mt19937 rng(7);
  for (const std::string sep : {"\n", "\r\n", "|~"}) {
    for (int trial = 0; trial < 12; ++trial) {
      // Lines of random lengths (some empty, some longer than the window), \r inside.
      std::string text;
      int lines = 1 + static_cast<int>(rng() % 30);
      for (int i = 0; i < lines; ++i) {
        int len = static_cast<int>(rng() % (i % 7 == 0 ? 60 : 12));
        for (int k = 0; k < len; ++k) text += static_cast<char>('a' + rng() % 26);
        if (rng() % 5 == 0) text += '\r';
        if (i + 1 < lines || rng() % 2) text += sep;
      }
      std::string path = "/t" + std::to_string(trial) + ".txt";
      ASSERT_TRUE(fs->WriteAtomic(path, text).ok());
      const int64_t size = static_cast<int64_t>(text.size());
      for (int64_t split = 1; split <= size + 1;
           split += 1 + static_cast<int64_t>(rng() % 9)) {
        for (int64_t start = 0; start < std::max<int64_t>(size, 1); start += split) {
          int64_t end = std::min(size, start + split);
          bool strip_cr = sep == "\n";
          auto want = ExpectedLines(*fs, path, start, end, size, sep, strip_cr);
          for (int64_t window : {int64_t{5}, int64_t{16}, int64_t{1 << 20}}) {
            for (size_t batch : {size_t{1}, size_t{3}, size_t{1000}}) {
              auto got =
                  WindowLines(*fs, path, start, end, size, sep, strip_cr, window, batch);
              ASSERT_EQ(got, want)
                  << "sep=" << (sep == "\n" ? "LF" : sep) << " start=" << start
                  << " end=" << end << " window=" << window << " batch=" << batch
                  << " text=" << text;
            }
          }
        }
      }
    }
  }
}

TEST(SplitLineReaderTest, EmptyFileAndSplitWithoutLineStart) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(fs->WriteAtomic("/e", "").ok());
  EXPECT_TRUE(WindowLines(*fs, "/e", 0, 0, 0, "\n", true, 16, 10).empty());
  ASSERT_TRUE(fs->WriteAtomic("/long", std::string(100, 'x') + "\nyy\n").ok());
  // The split [10, 50) starts inside the first line and no line starts in it.
  EXPECT_TRUE(WindowLines(*fs, "/long", 10, 50, 104, "\n", true, 8, 10).empty());
  EXPECT_EQ(WindowLines(*fs, "/long", 50, 104, 104, "\n", true, 8, 10),
            std::vector<std::string>{"yy"});
}

}  // namespace
}  // namespace spate::formats
