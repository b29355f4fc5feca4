// State logs: what the original records at fixed points of each simulation step (STEP, CTRL, PHYS
// records) and at the end of each pass of the frame loop (FRAM), each a list of (address, bytes) blocks. The stand-in writes them; a recorder inside POD
// would write the same format. Byte layout: capture/docs/state-log.md.
//
// Reading is for untrusted input: every count and size is checked against StateLogLimits before
// anything is allocated; a malformed log gives an Error naming what and where (kTruncated,
// kBadMagic, kBadVersion, kMalformed, kLimit, kChecksum), never a crash.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <map>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::capture {

using harness::GuestAddr;

/// "LKSTLOG\n": the first 8 bytes of every state log.
inline constexpr std::array<std::uint8_t, 8> kStateLogMagic = {'L', 'K', 'S', 'T', 'L', 'O', 'G', '\n'};
/// The version a writer writes unless told otherwise: 2, where a FRAM record's pass number has a
/// field of its own. A reader reads 1 too (its FRAM records carry the pass in the instance field).
inline constexpr std::uint32_t kStateLogVersion = 2;
inline constexpr std::uint32_t kStateLogOldestVersion = 1;
inline constexpr std::uint32_t kStateLogHeaderSize = 32;  ///< the header every version writes
/// A record's header (tag, step, instance, [pass,] block count, payload size) in a version's layout:
/// 20 bytes in version 1, 24 in version 2.
std::uint32_t state_log_record_header_size(std::uint32_t version) noexcept;

/// Where in the step a record was taken (port/CHOICES.md "Step log").
enum class RecordKind : std::uint8_t {
  kStep,  ///< "STEP": entry of the simulation step (no instance, no pass)
  kCtrl,  ///< "CTRL": in the car step, right after the controller returns
  kPhys,  ///< "PHYS": after the car step returns to the simulation step
  kFrame, ///< "FRAM": at the end of a pass of the frame loop (no instance; its pass number)
};
const char* record_kind_name(RecordKind k) noexcept;  ///< "STEP", "CTRL", "PHYS", "FRAM"

/// One block of guest memory as it was at the record's point.
struct Block {
  GuestAddr address = 0;
  std::vector<std::uint8_t> bytes;
  std::uint64_t end() const noexcept { return std::uint64_t{address} + bytes.size(); }
  bool operator==(const Block&) const = default;
};

struct Record {
  RecordKind kind = RecordKind::kStep;
  std::uint32_t step = 0;    ///< the simulation step's number (FRAM: the steps run so far)
  std::int32_t instance = -1; ///< which element of the profile's [[instance]]s: 0.. for CTRL and PHYS, else -1
  std::int32_t pass = -1;     ///< FRAM: the pass of the frame loop (0, 1, ...); -1 for the other kinds
  std::vector<Block> blocks; ///< non-overlapping, in the order written
  /// The block holding all of [address, address + size), or null.
  const Block* find(GuestAddr address, std::uint32_t size = 1) const noexcept;
  /// The n bytes at address, from the one block that holds them (kNotFound otherwise).
  Result<std::span<const std::uint8_t>> bytes_at(GuestAddr address, std::uint32_t n) const;
  bool operator==(const Record&) const = default;
};

struct StateLogHeader {
  std::uint32_t version = kStateLogVersion;
  std::string producer;  ///< up to 16 ASCII characters ("lockstep-standin")
  /// The version read, or the one to write (its record layout: kStateLogOldestVersion..kStateLogVersion).
  bool operator==(const StateLogHeader&) const = default;
};

struct StateLog {
  StateLogHeader header;
  std::vector<Record> records;
  /// SHA-256 (64 hex digits) of the file read_state_log parsed, for a corpus's provenance: the bytes
  /// hashed are the bytes parsed, read once. Empty for a log decoded from memory; not part of ==.
  std::string sha256;
  bool operator==(const StateLog& o) const { return header == o.header && records == o.records; }
};

/// Bounds a reader enforces (Errc::kLimit past them); defaults far above any real log.
struct StateLogLimits {
  std::uint32_t max_blocks_per_record = 4096;
  std::uint32_t max_block_bytes = 64u << 20;      ///< one block
  std::uint32_t max_record_bytes = 256u << 20;    ///< one record's blocks together
  std::uint64_t max_records = 50'000'000;
  std::int32_t max_instance = 255;
  std::uint64_t max_file_bytes = std::uint64_t{64} << 30;  ///< read_state_log only
};

/// The order records of a log must come in (capture/docs/state-log.md, "Order of records"): steps
/// never go back; within a step at most one STEP record, first; per instance one CTRL record, then
/// one PHYS record, both before the next step begins; a FRAM record closes the step before it, its
/// step field counts the steps run so far (past every step seen) and its passes are consecutive. A
/// missing, repeated or misplaced record is kMalformed naming the record's offset, step and instance: a
/// driver would otherwise skip a run or run it twice without a word.
class RecordOrder {
 public:
  Status add(const Record& r, std::string_view what, std::uint64_t offset);
  /// At the end of the log: every CTRL record has had its PHYS record.
  Status finish(std::string_view what);

 private:
  Status close_step(std::string_view what);
  bool started_ = false;
  std::uint32_t step_ = 0;
  bool step_record_ = false, instance_record_ = false;
  bool after_frame_ = false;              ///< the last record was a FRAM record
  std::uint32_t frame_step_ = 0;          ///< its step field: later records' steps are at least this
  std::optional<std::int32_t> last_pass_; ///< the pass number of the last FRAM record
  /// Per instance of the current step: the offset of its CTRL record, and whether its PHYS came.
  std::map<std::int32_t, std::pair<std::uint64_t, bool>> instances_;
};

/// Parses a whole log held in memory, records checked one by one and in order (RecordOrder).
/// `what` names it in messages.
Result<StateLog> decode_state_log(std::span<const std::uint8_t> bytes, std::string_view what,
                                  const StateLogLimits& limits = {});
/// Reads and parses a log file, and hashes the bytes it read (StateLog::sha256).
Result<StateLog> read_state_log(const std::filesystem::path& path, const StateLogLimits& limits = {});

/// Serialises a log in the layout of its header's version (tests and tools; the stand-in writes
/// version 1's bytes from C).
std::vector<std::uint8_t> encode_state_log(const StateLog& log);
/// The file header alone (encode_state_log's first 32 bytes), for a writer that appends records.
std::vector<std::uint8_t> encode_state_log_header(const StateLogHeader& header);
/// One record as it follows the header (its CRC included) in `version`'s layout, appended to `out`.
void append_encoded_record(const Record& rec, std::uint32_t version, std::vector<std::uint8_t>& out);

/// Reads a log file record by record, holding one record at a time (POD's logs are large).
class StateLogReader {
 public:
  static Result<StateLogReader> open(const std::filesystem::path& path, const StateLogLimits& limits = {});
  const StateLogHeader& header() const noexcept { return header_; }
  /// The next record, std::nullopt at a clean end of file, or an Error (RecordOrder's too).
  Result<std::optional<Record>> next();
  /// Byte offset of the next record in the file.
  std::uint64_t offset() const noexcept { return offset_; }

 private:
  StateLogReader() = default;
  std::ifstream in_;
  std::string what_;
  StateLogLimits limits_;
  StateLogHeader header_;
  std::uint64_t offset_ = 0;
  std::uint64_t records_ = 0;
  RecordOrder order_;
};

}  // namespace lockstep::capture
