// Copyright spate authors.
#pragma once

// FileStreamSource: files that appear in a folder, as Spark's file stream source (json,
// text and parquet; csv through the same path once its reader is registered).
//
// Each trigger lists the folder (recursively, skipping names starting with '_' or '.';
// pathGlobFilter applies to file names), keeps files not seen before and not older than
// maxFileAge relative to the newest file seen (default 7d; ignored with latestFirst and
// maxFilesPerTrigger, as Spark), orders them by modification time (newest first with
// latestFirst), takes at most maxFilesPerTrigger files / maxBytesPerTrigger bytes, and
// records them in the source log <checkpoint>/sources/<i>/<logOffset> (Spark's
// FileStreamSourceLog: "v1" then {"path":"file:///...","timestamp":<ms>,"batchId":<n>}
// lines, compacted every spark.sql.streaming.fileSource.log.compactInterval = 10) BEFORE
// the offset {"logOffset":n} is returned. A file is therefore taken exactly once, even if
// it is still growing when a later file appears: a batch reads exactly the files its log
// entries name. fileNameOnly=true matches seen files by name only. cleanSource
// (off | delete | archive with sourceArchiveDir) acts on a batch's files after it is
// committed. All other options go to the batch reader (parse modes, multiLine, ...).
// Columns of the schema named by `key=value` folders between the source folder and a
// file (Hive partitions) take their values from the folder names (unless
// recursiveFileLookup=true).
//
// Two processes on one checkpoint: the log entry is put-if-absent, so one of two writers
// of an offset fails with CONCURRENT_STREAM_LOG_UPDATE; the source knows every file named
// at or below its log offset (the log is read in one listing, and again when the query
// starts after the offset the source read), so no file is ever named in two entries.
//
// Ownership: owned by its query; shares the FileSystem. Thread safety: the query thread.
// Failure: listing and log errors as Status; reading errors name the file.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spate/stream/source.h"

namespace spate::connectors {

/// Builds the batch DataSource of a list of files with the given (data) schema.
using FileBatchReader = std::function<Result<DataSourcePtr>(
    const std::vector<std::string>& files, const SchemaPtr& schema)>;

struct FileSourceOptions {
  std::string format;  // json | text | parquet | csv
  std::string path;
  SchemaPtr schema;
  std::map<std::string, std::string> options;
  FileBatchReader reader;
  /// false (Auto Loader's cloudFiles.includeExistingFiles=false): the files in the folder
  /// when the query first starts (its source log is empty) are recorded once in
  /// <checkpoint>/sources/<i>/existingFiles and never taken; later starts read that list
  /// back, so files arriving in between are not lost. No effect on a query whose log
  /// already has entries (as Databricks: the option counts at the first start only).
  bool include_existing_files = true;
  /// The progress description's name ("FileStreamSource[file:///in]"; Auto Loader:
  /// "CloudFilesSource").
  std::string name = "FileStreamSource";
  /// Progress metrics numFilesOutstanding / numBytesOutstanding (Auto Loader's): the
  /// files the last trigger listed and did not take.
  bool report_backlog = false;
};

/// Validates the options (maxFilesPerTrigger > 0, cleanSource values, ...) and returns
/// the factory that creates the source when a query starts.
Result<stream::SourceFactory> MakeFileSourceFactory(FileSourceOptions options);

/// Whether `name` matches `glob` (`*` any run, `?` one character, [abc] sets).
bool FileGlobMatch(std::string_view glob, std::string_view name);

}  // namespace spate::connectors
