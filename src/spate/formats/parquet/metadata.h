// Copyright spate authors.
#pragma once

// Parquet's Thrift metadata (FileMetaData, SchemaElement, RowGroup, ColumnChunk,
// ColumnMetaData, Statistics, PageHeader and the page headers, LogicalType) as plain
// structs, with compact-protocol serialization. Field ids follow parquet.thrift in
// apache/parquet-format. Only the fields spate reads or writes are kept; unknown fields
// are skipped when reading.
//
// Thread safety: plain values. Failure: Read* return kDataCorruption for malformed input
// (truncated data, missing required fields, out-of-range lengths).

#include <cstdint>
#include <string>
#include <vector>

#include "spate/base/status.h"

namespace spate::formats::parquet {

enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

enum class ConvertedType : int32_t {
  kNone = -1,
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
const char* EncodingName(Encoding e);

enum class Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};
const char* CodecName(Codec c);

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3
};

enum class TimeUnit : int8_t { kMillis = 1, kMicros = 2, kNanos = 3 };

/// The LogicalType union (field id of the set member in `kind`).
struct LogicalType {
  enum Kind : int16_t {
    kNone = 0,
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
  };
  int16_t kind = kNone;               // may hold an id spate does not know
  int32_t scale = 0, precision = 0;   // kDecimal
  bool is_adjusted_to_utc = false;    // kTime / kTimestamp
  TimeUnit unit = TimeUnit::kMicros;  // kTime / kTimestamp
  int8_t bit_width = 0;               // kInteger
  bool is_signed = true;              // kInteger
};

struct SchemaElement {
  bool has_type = false;
  PhysicalType type = PhysicalType::kBoolean;
  int32_t type_length = 0;
  bool has_repetition = false;
  Repetition repetition = Repetition::kRequired;
  std::string name;
  int32_t num_children = 0;  // 0 = leaf unless has_type is false
  bool has_num_children = false;
  ConvertedType converted_type = ConvertedType::kNone;
  int32_t scale = 0, precision = 0;
  bool has_field_id = false;
  int32_t field_id = 0;
  LogicalType logical_type;
};

struct Statistics {
  bool has_max = false, has_min = false, has_null_count = false,
       has_distinct_count = false;
  bool has_max_value = false, has_min_value = false;
  std::string max, min;  // deprecated signed-order fields
  int64_t null_count = 0, distinct_count = 0;
  std::string max_value, min_value;
};

struct KeyValue {
  std::string key;
  bool has_value = false;
  std::string value;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  bool has_dictionary_page_offset = false;
  int64_t dictionary_page_offset = 0;
  bool has_statistics = false;
  Statistics statistics;
};

struct ColumnChunk {
  bool has_file_path = false;
  std::string file_path;
  int64_t file_offset = 0;
  bool has_meta_data = false;
  ColumnMetaData meta_data;
  bool encrypted = false;  // crypto_metadata or encrypted_column_metadata present
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  bool has_file_offset = false;
  int64_t file_offset = 0;
  int64_t total_compressed_size = 0;
  int16_t ordinal = 0;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::string created_by;
  int32_t num_column_orders = 0;  // written as TYPE_ORDER for every leaf
  bool encrypted = false;  // encryption_algorithm present (plaintext-footer encryption)
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  bool is_sorted = false;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  bool has_crc = false;
  int32_t crc = 0;
  bool has_data_page_header = false;
  DataPageHeader data_page_header;
  bool has_dictionary_page_header = false;
  DictionaryPageHeader dictionary_page_header;
  bool has_data_page_header_v2 = false;
  DataPageHeaderV2 data_page_header_v2;
};

Status ReadFileMetaData(const uint8_t* data, int64_t size, FileMetaData* out);
void WriteFileMetaData(const FileMetaData& md, std::string* out);
/// Reads a page header at the start of [data, data+size); `header_size` = bytes consumed.
Status ReadPageHeader(const uint8_t* data, int64_t size, PageHeader* out,
                      int64_t* header_size);
void WritePageHeader(const PageHeader& h, std::string* out);

}  // namespace spate::formats::parquet
