// Copyright spate authors.
#pragma once

// The file-listing, partition-discovery and split machinery shared by the line-oriented
// file sources (JSON, text, CSV):
//
//  - ListInputFiles: the data files of the input paths (a file, or directories read
//    recursively skipping names that start with '_' or '.'), sorted by path, with Spark's
//    general file-source options: recursiveFileLookup=true (no partition discovery),
//    pathGlobFilter (file names matched with `*` and `?`), modifiedBefore / modifiedAfter
//    (timestamps "YYYY-MM-DDTHH:mm:ss" in the timeZone option or session zone; a file
//    is kept when its modification time is strictly before / after). Hive-style
//    `key=value` folders become partition columns (types inferred as Spark does unless
//    the user schema names the column).
//  - MakeSplits: one split per file, or chunks of `split_bytes` of large splittable
//  files.
//  - ReadSplitText: the text of the lines that start in a byte range (a line belongs to
//    the split its first byte is in).
//  - AssembleOutput: a batch of the requested columns from data columns plus the file's
//    constant partition values; PartitionsRuleOut: pushed-down IS [NOT] NULL predicates
//    on partition columns that rule a file out.
//
// Ownership: plain values. Thread safety: free functions, safe from any thread.
// Failure: a missing path -> PATH_NOT_FOUND; bad option values -> Spark's error; I/O
// errors returned with the file named.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/io/file_system.h"

namespace spate::formats {

using OptionMap = std::map<std::string, std::string>;

/// The lines that start in a byte range [start, end) of an uncompressed file (the rule of
/// ReadSplitText), read in windows of `window_bytes` so memory stays bounded and the
/// buffer is reused: NextLines hands out views into the window, valid until the next
/// call. Ownership: owns the open file. Thread safety: one thread. Failure: I/O errors
/// name the file.
class SplitLineReader {
 public:
  static constexpr int64_t kDefaultWindowBytes = 4 << 20;
  static Result<std::unique_ptr<SplitLineReader>> Open(
      io::FileSystem& fs, const std::string& path, int64_t start, int64_t end,
      int64_t size, std::string sep, bool strip_cr,
      int64_t window_bytes = kDefaultWindowBytes);
  /// Replaces `lines` with up to `max_lines` next lines (a trailing '\r' dropped when
  /// strip_cr); false when the split has no more lines.
  Result<bool> NextLines(size_t max_lines, std::vector<std::string_view>* lines);
  /// The file offset of a line NextLines just handed out.
  int64_t OffsetOf(std::string_view line) const {
    return buf_offset_ + static_cast<int64_t>(line.data() - buf_.data());
  }

 private:
  SplitLineReader() = default;
  // Moves the unconsumed bytes to the front and reads more (at least `want` bytes of
  // room).
  Status Fill();

  std::unique_ptr<io::RandomAccessFile> file_;
  std::string sep_;
  bool strip_cr_ = false;
  int64_t end_ = 0;   // lines starting at or after this offset are the next split's
  int64_t size_ = 0;  // file size
  int64_t window_ = 0;
  std::string buf_;              // the window
  size_t filled_ = 0;            // valid bytes in buf_
  size_t cursor_ = 0;            // next line starts here
  int64_t buf_offset_ = 0;       // file offset of buf_[0]
  int64_t read_pos_ = 0;         // next file offset to read
  bool skipping_first_ = false;  // start > 0: drop the line crossing `start`
  bool done_ = false;
};

/// Case-insensitive option lookup (Spark's CaseInsensitiveMap); nullptr when absent.
const std::string* FindOption(const OptionMap& options, std::string_view key);
/// The option's value, or `def`.
std::string StringOption(const OptionMap& options, std::string_view key,
                         const std::string& def = "");
/// "true"/"false" (any case), else `def` when absent; other values are an error naming
/// the option (Spark's paramIsNotBooleanValueError).
Result<bool> BoolOption(const OptionMap& options, std::string_view key, bool def = false);

struct InputFile {
  std::string path;
  int64_t size = 0;
  int64_t modification_time_ms = 0;
  std::vector<Value> partition_values;  // one per FileIndex::partition_fields
};

struct FileIndex {
  std::vector<InputFile> files;
  std::vector<Field> partition_fields;
};

/// Lists the input files (see the file comment). `user_schema` (may be null) fixes the
/// types of the partition columns it names. `session_time_zone` is the default zone of
/// modifiedBefore / modifiedAfter.
Result<FileIndex> ListInputFiles(io::FileSystem& fs,
                                 const std::vector<std::string>& paths,
                                 const OptionMap& options, const SchemaPtr& user_schema,
                                 const std::string& session_time_zone);

/// The fields of `user_schema` that are not partition columns of `index`.
std::vector<Field> DataFieldsOf(const Schema& user_schema, const FileIndex& index);

struct FileSplit {
  int file;
  int64_t start, end;  // byte range; the whole file when not splittable
};
/// Splits: whole files when `splittable` is false, a file is at most `split_bytes` or is
/// compressed (.gz).
std::vector<FileSplit> MakeSplits(const std::vector<InputFile>& files,
                                  int64_t split_bytes, bool splittable);

/// Spark's partitioning of a file scan (FilePartition):
/// spark.sql.files.maxPartitionBytes, spark.sql.files.openCostInBytes and
/// spark.sql.files.minPartitionNum (else the default parallelism; 0 here: the default
/// thread pool's size).
struct FilePacking {
  int64_t max_partition_bytes = 128ll << 20;
  int64_t open_cost_bytes = 4ll << 20;
  int64_t min_partitions = 0;
};

/// FilePartition.maxSplitBytes for files of `sizes`: min(maxPartitionBytes, max(openCost,
/// sum(size + openCost) / minPartitions)).
int64_t SparkMaxSplitBytes(const std::vector<int64_t>& sizes, const FilePacking& packing);

/// FilePartition.getFilePartitions over items (files or pieces of files) of `sizes`:
/// sorted by size, descending (stable), each added to the current partition unless that
/// would pass `max_split` bytes, counting `open_cost` per item. The partitions as indices
/// into sizes.
std::vector<std::vector<size_t>> PackLikeSpark(const std::vector<int64_t>& sizes,
                                               int64_t max_split, int64_t open_cost);

/// The size of an inference split for `total_bytes` of input and `parallelism` threads:
/// about eight splits per thread, at least 4 MiB, at most `max_split_bytes`.
int64_t InferenceSplitBytes(int64_t total_bytes, int parallelism,
                            int64_t max_split_bytes = 128ll << 20);

/// Splits for schema inference: like MakeSplits, with a split size chosen so that
/// `parallelism` threads get about eight splits each (at least 4 MiB, at most
/// `max_split_bytes`; `split_bytes` > 0 forces a size). Inference gives the same schema
/// for any splitting.
std::vector<FileSplit> MakeInferenceSplits(const std::vector<InputFile>& files,
                                           bool splittable, int parallelism,
                                           int64_t split_bytes = 0,
                                           int64_t max_split_bytes = 128ll << 20);

/// samplingRatio for schema inference (Spark's Bernoulli sample with a fixed seed):
/// ratios above 0.99 keep every record (as Spark's JsonUtils / CSVUtils.sample do);
/// otherwise a record is kept when a hash of its file's index and its byte offset in the
/// file falls below the ratio, so the sample does not depend on how files are split or on
/// threads.
inline bool KeepSampledRecord(double sampling_ratio, int64_t file_index, int64_t offset) {
  if (sampling_ratio > 0.99) return true;
  uint64_t z = static_cast<uint64_t>(file_index) * 0x9E3779B97F4A7C15ull +
               static_cast<uint64_t>(offset) + 1;  // seed 1
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;     // splitmix64's finalizer
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 < sampling_ratio;
}

/// The text of the lines of a split: the bytes from the first line starting in
/// [start, end) to the end of the last such line (its separator `sep` included).
/// start = 0 and end = size read the whole file (a .gz file is decompressed).
Result<std::string> ReadSplitText(io::FileSystem& fs, const std::string& path,
                                  int64_t start, int64_t end, int64_t size,
                                  const std::string& sep);

/// Gunzips `data` (one or more gzip members); an error says what is wrong.
Result<std::string> GunzipText(std::string_view data);

/// Adds "Encountered error while reading file file:<path>" to `st`.
Status FileError(const Status& st, const std::string& path);

/// Whether a pushed-down predicate on a partition column rules the whole file out.
bool PartitionsRuleOut(const ScanSpec& spec, const InputFile& file, int num_data_columns,
                       int num_fields);

/// The part a file source over text files split into byte ranges (CSV, JSON, text)
/// shares: the listed files, their splits, and the schema (the data columns, then the
/// partition columns). A subclass fills the members when it is made and opens a split's
/// reader. Thread safety: immutable once made; any thread may open splits.
class SplitFileDataSource : public DataSource {
 public:
  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(splits_.size()); }
  std::string SplitPath(int split) const override {
    return files_[splits_[split].file].path;
  }
  std::optional<int64_t> EstimatedBytes() const override;

 protected:
  /// The split to read, or nullptr when `split` is out of range or the file's partition
  /// values rule it out (the caller returns an empty reader).
  const FileSplit* SplitToRead(int split, const ScanSpec& spec) const;
  /// The schema of the batches a reader of `spec` returns (`spec.columns` of schema()).
  SchemaPtr OutputSchema(const ScanSpec& spec) const;

  SchemaPtr schema_;
  int num_data_columns_ = 0;
  std::vector<InputFile> files_;
  std::vector<FileSplit> splits_;
};

/// The batch of `spec.columns` over `data` (the data columns, by data index; may hold
/// nullptr for columns not read) and the file's partition values.
Result<BatchPtr> AssembleOutput(const SchemaPtr& out_schema, const ScanSpec& spec,
                                const std::vector<ColumnPtr>& data, const InputFile& file,
                                int num_data_columns, int64_t rows);

/// Whether `name` matches `glob` (`*` any run, `?` one character, others literal).
bool GlobMatch(std::string_view glob, std::string_view name);

}  // namespace spate::formats
