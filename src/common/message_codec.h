#pragma once
// Byte formats of messages (PROTOCOL.md §4): the properties string, the CommitLog record (which is
// also the PULL/QUERY/VIEW body format), the SEND_BATCH_MESSAGE body, zlib, CRC, Java tag hash.
// Everything here is pure (no I/O, no globals) and safe from any thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/java_string_map.h"
#include "common/message.h"
#include "common/result.h"

namespace rmq {

// ---- small algorithms ----
// java.util.zip.CRC32 & 0x7FFFFFFF (stored as a signed int). PCLMUL folding where the CPU has it.
int32_t crc32Masked(std::string_view bytes);
uint32_t crc32Ieee(std::string_view bytes);         // full 32-bit java.util.zip.CRC32 value
int32_t crc32MaskedZlib(std::string_view bytes);   // reference (plain zlib), for tests
// Java String.hashCode() of a UTF-8 string (hashed as UTF-16 code units; malformed bytes count as U+FFFD).
int32_t javaStringHash(std::string_view utf8);
// Number of UTF-16 code units a UTF-8 string has in Java (String.length()).
size_t javaStringLength(std::string_view utf8);
// zlib container (RFC 1950), what Java Deflater/Inflater use.
std::string zlibCompress(std::string_view data, int level = 5);
Result<std::string> zlibInflate(std::string_view data, size_t maxOutput = 64u << 20);

// ---- properties string (§4.5) ----
std::string encodeProperties(const Properties& props);
void appendProperties(std::string& out, const Properties& props);
Properties decodeProperties(std::string_view s);
// Java's string2messageProperties into a HashMap model: puts every item Java keeps, in the
// string's order (the map views `s`).
void putEncodedProperties(JavaStringMap& map, std::string_view s);
// messageProperties2String of a HashMap: items in Java's iteration order, the last 0x02 dropped.
void appendProperties(std::string& out, const JavaStringMap& map);
// Value of `name` inside an encoded properties string, without allocating (Java's decode rules:
// items shorter than 3 chars or with an empty key/value are ignored). nullopt when absent.
std::optional<std::string_view> findEncodedProperty(std::string_view props, std::string_view name);

// ---- CommitLog record (§4.1) ----
// Input of the record encoder: numeric fields plus views of topic, body and encoded properties.
struct RecordFields {
  int32_t bodyCRC = 0;
  int32_t queueId = 0;
  int32_t flag = 0;
  int64_t queueOffset = 0;
  int64_t physicalOffset = 0;
  int32_t sysFlag = 0;  // V6 bits are derived from bornHost/storeHost by the encoder
  int64_t bornTimestamp = 0;
  HostAddress bornHost;
  int64_t storeTimestamp = 0;
  HostAddress storeHost;
  int32_t reconsumeTimes = 0;
  int64_t preparedTransactionOffset = 0;
  std::string_view body;
  std::string_view topic;
  std::string_view properties;
};

// Non-owning view of one parsed record: its fields (all string_views point into the parsed
// buffer), the whole record, its TOTALSIZE and magic; as RecordFields it can go to the encoder.
struct RecordView : RecordFields {
  std::string_view raw;  // the whole record (TOTALSIZE bytes)
  int32_t totalSize = 0;
  int32_t magic = 0;
};

enum class RecordParse {
  Ok,         // a valid record
  Blank,      // end-of-file blank marker (§4.4): skip to the next file
  Truncated,  // not enough bytes for the record the header announces (or for the header)
  Corrupt,    // bad magic, inconsistent lengths, or CRC mismatch (when checked)
};
// Parses the record starting at `data` (at most `avail` bytes). Recognises magic v1 and v2 (§4.1.1).
RecordParse parseRecord(const char* data, size_t avail, RecordView& out, bool checkCRC);

// TOTALSIZE of the record these fields encode to.
size_t recordSize(const RecordFields& f);
// Writes the record (recordSize(f) bytes) at dst; returns the size. Does not compute the CRC.
size_t encodeRecord(const RecordFields& f, char* dst);
// Convenience for tests and tools: a complete record from a MessageExt (CRC taken from m.bodyCRC).
std::string encodeMessageExt(const MessageExt& m);

// Decodes one record / every record of a PULL-style body. inflateBody: zlib-inflate bodies whose
// sysFlag has COMPRESSED (the stored bodyCRC is kept as-is).
Result<MessageExt> decodeMessage(std::string_view record, bool inflateBody = true);
Result<std::vector<MessageExt>> decodeMessages(std::string_view bytes, bool inflateBody = true);
MessageExt toMessageExt(const RecordView& r);  // body copied as stored (no inflation)

// ---- batch body (§4.7) ----
struct BatchItem {
  int32_t flag = 0;
  std::string_view body;
  std::string_view properties;  // encoded properties string
};
std::string encodeBatch(const std::vector<Message>& msgs);
Result<std::vector<BatchItem>> decodeBatch(std::string_view body);

}  // namespace rmq
