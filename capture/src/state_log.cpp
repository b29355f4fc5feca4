// The state log reader and writer (capture/docs/state-log.md).
#include "lockstep/capture/state_log.hpp"

#include <algorithm>
#include <cstring>

#include "lockstep/base/byte_reader.hpp"
#include "lockstep/base/io.hpp"

namespace lockstep::capture {

namespace {

constexpr std::uint32_t kMaxHeaderSize = 4096;
constexpr std::size_t kProducerBytes = 16;

std::uint32_t tag_of(RecordKind k) {
  const char* name = record_kind_name(k);
  std::uint32_t t;
  std::memcpy(&t, name, 4);
  return t;
}

std::optional<RecordKind> kind_of(std::uint32_t tag) {
  for (RecordKind k : {RecordKind::kStep, RecordKind::kCtrl, RecordKind::kPhys, RecordKind::kFrame})
    if (tag_of(k) == tag) return k;
  return std::nullopt;
}

std::string printable_tag(std::uint32_t tag) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    auto c = static_cast<unsigned char>(tag >> (8 * i));
    s += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return s;
}

// The 32-byte file header: magic, version, header size, producer.
Result<StateLogHeader> parse_header(std::span<const std::uint8_t> head, std::string_view what,
                                    std::uint32_t* header_size) {
  ByteReader r(head, std::string(what));
  LOCKSTEP_TRY(auto magic, r.take(8, "magic"));
  if (!std::equal(magic.begin(), magic.end(), kStateLogMagic.begin()))
    return Error::make(Errc::kBadMagic, "{}: not a lockstep state log (the first 8 bytes are not \"LKSTLOG\\n\")", what);
  StateLogHeader h;
  LOCKSTEP_TRY(h.version, r.u32("version"));
  if (h.version < kStateLogOldestVersion || h.version > kStateLogVersion)
    return Error::make(Errc::kBadVersion, "{}: state log version {} (this build reads versions {} to {}: a newer "
                       "lockstep reads it, or write the log with this one)", what, h.version, kStateLogOldestVersion,
                       kStateLogVersion);
  LOCKSTEP_TRY(*header_size, r.u32("header size"));
  if (*header_size < kStateLogHeaderSize || *header_size > kMaxHeaderSize)
    return Error::make(Errc::kMalformed, "{}: header size {} is outside {}..{}", what, *header_size,
                       kStateLogHeaderSize, kMaxHeaderSize);
  LOCKSTEP_TRY(auto producer, r.take(kProducerBytes, "producer"));
  for (std::uint8_t c : producer) {
    if (c == 0) break;
    if (c < 0x20 || c >= 0x7f)
      return Error::make(Errc::kMalformed, "{}: the producer name holds a non-ASCII byte 0x{:02x}", what, c);
    h.producer.push_back(static_cast<char>(c));
  }
  return h;
}

struct RecordHead {
  RecordKind kind;
  std::uint32_t step;
  std::int32_t instance;
  std::int32_t pass;
  std::uint32_t blocks;
  std::uint32_t payload;
};

// The instance and pass fields as the kind allows them: a CTRL or PHYS record is about an instance
// (0..max_instance) and has no pass; a FRAM record is about a pass (0..) and has no instance; a STEP
// record has neither. "None" is -1.
Status check_instance_and_pass(const RecordHead& h, std::string_view what, std::uint64_t at,
                               const StateLogLimits& limits) {
  const char* name = record_kind_name(h.kind);
  const bool car_record = h.kind == RecordKind::kCtrl || h.kind == RecordKind::kPhys;
  if (car_record && (h.instance < 0 || h.instance > limits.max_instance))
    return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x} (step {}) has instance {}, outside 0..{}", what,
                       name, at, h.step, h.instance, limits.max_instance);
  if (!car_record && h.instance != -1)
    return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x} (step {}) has instance {}, not -1 (it is about "
                       "no instance)", what, name, at, h.step, h.instance);
  if (h.kind == RecordKind::kFrame && h.pass < 0)
    return Error::make(Errc::kMalformed, "{}: FRAM record at offset 0x{:x} (step {}) has pass number {}, below 0", what,
                       at, h.step, h.pass);
  if (h.kind != RecordKind::kFrame && h.pass != -1)
    return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x} (step {}) has pass number {}, not -1 (only a "
                       "FRAM record ends a pass)", what, name, at, h.step, h.pass);
  return {};
}

// A record header in `version`'s layout. Version 1 has no pass field: its FRAM records carry the
// pass number in the instance field, which is where it is taken from.
Result<RecordHead> parse_record_head(std::span<const std::uint8_t> head, std::uint32_t version, std::string_view what,
                                     std::uint64_t at, const StateLogLimits& limits) {
  ByteReader r(head, std::string(what));
  LOCKSTEP_TRY(std::uint32_t tag, r.u32("record tag"));
  auto kind = kind_of(tag);
  if (!kind)
    return Error::make(Errc::kMalformed, "{}: record at offset 0x{:x}: unknown tag '{}' (STEP, CTRL, PHYS or FRAM)", what, at,
                       printable_tag(tag));
  RecordHead h{*kind, 0, -1, -1, 0, 0};
  LOCKSTEP_TRY(h.step, r.u32("step"));
  LOCKSTEP_TRY(std::uint32_t instance, r.u32("instance"));
  h.instance = static_cast<std::int32_t>(instance);
  if (version >= 2) {
    LOCKSTEP_TRY(std::uint32_t pass, r.u32("pass"));
    h.pass = static_cast<std::int32_t>(pass);
  } else if (h.kind == RecordKind::kFrame) {
    h.pass = h.instance;
    h.instance = -1;
  }
  LOCKSTEP_TRY(h.blocks, r.u32("block count"));
  LOCKSTEP_TRY(h.payload, r.u32("payload size"));
  const char* name = record_kind_name(h.kind);
  LOCKSTEP_TRY_STATUS(check_instance_and_pass(h, what, at, limits));
  if (h.blocks > limits.max_blocks_per_record)
    return Error::make(Errc::kLimit, "{}: {} record at offset 0x{:x} has {} blocks, past the limit of {}", what, name,
                       at, h.blocks, limits.max_blocks_per_record);
  if (h.payload > limits.max_record_bytes)
    return Error::make(Errc::kLimit, "{}: {} record at offset 0x{:x} has {} bytes of blocks, past the limit of {}",
                       what, name, at, h.payload, limits.max_record_bytes);
  if (std::uint64_t{h.blocks} * 8 > h.payload)
    return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x}: {} blocks cannot fit in {} payload bytes",
                       what, name, at, h.blocks, h.payload);
  return h;
}

// The blocks of one record, then its CRC (over the record header and the payload).
Result<Record> parse_record_body(const RecordHead& h, std::span<const std::uint8_t> head,
                                 std::span<const std::uint8_t> payload, std::uint32_t stored_crc,
                                 std::string_view what, std::uint64_t at, const StateLogLimits& limits) {
  const char* name = record_kind_name(h.kind);
  std::uint32_t crc = lockstep::crc32(head);
  crc = lockstep::crc32(payload, crc);
  if (crc != stored_crc)
    return Error::make(Errc::kChecksum, "{}: {} record at offset 0x{:x} (step {}): CRC-32 0x{:08x} stored, 0x{:08x} computed",
                       what, name, at, h.step, stored_crc, crc);
  Record rec;
  rec.kind = h.kind;
  rec.step = h.step;
  rec.instance = h.instance;
  rec.pass = h.pass;
  rec.blocks.reserve(h.blocks);
  ByteReader r(payload, std::string(what));
  for (std::uint32_t i = 0; i < h.blocks; ++i) {
    LOCKSTEP_TRY(std::uint32_t address, r.u32("block address"));
    LOCKSTEP_TRY(std::uint32_t size, r.u32("block size"));
    if (size > limits.max_block_bytes)
      return Error::make(Errc::kLimit, "{}: {} record at offset 0x{:x}, block {} at 0x{:x}: {} bytes, past the limit of {}",
                         what, name, at, i, address, size, limits.max_block_bytes);
    if (std::uint64_t{address} + size > (std::uint64_t{1} << 32))
      return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x}, block {} at 0x{:x} (0x{:x} bytes) wraps past 4 GiB",
                         what, name, at, i, address, size);
    auto bytes = r.take(size, "block bytes");
    if (!bytes.ok())
      return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x}, block {} at 0x{:x}: its 0x{:x} bytes run past the "
                         "record's payload", what, name, at, i, address, size);
    rec.blocks.push_back(Block{address, std::vector<std::uint8_t>(bytes->begin(), bytes->end())});
  }
  if (r.remaining() != 0)
    return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x}: {} payload bytes after the last block", what,
                       name, at, r.remaining());
  // Blocks must not overlap: a byte has one value at one point of the step.
  std::vector<const Block*> sorted;
  for (const Block& b : rec.blocks) sorted.push_back(&b);
  std::sort(sorted.begin(), sorted.end(), [](const Block* a, const Block* b) { return a->address < b->address; });
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i]->address < sorted[i - 1]->end())
      return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x}: blocks at 0x{:x} and 0x{:x} overlap", what,
                         name, at, sorted[i - 1]->address, sorted[i]->address);
  return rec;
}

void put_record(ByteWriter& w, const Record& rec, std::uint32_t version) {
  ByteWriter body;
  body.u32(tag_of(rec.kind));
  body.u32(rec.step);
  if (version >= 2) {
    body.u32(static_cast<std::uint32_t>(rec.instance));
    body.u32(static_cast<std::uint32_t>(rec.pass));
  } else {  // version 1: a FRAM record's pass number in the instance field
    body.u32(static_cast<std::uint32_t>(rec.kind == RecordKind::kFrame ? rec.pass : rec.instance));
  }
  body.u32(static_cast<std::uint32_t>(rec.blocks.size()));
  std::uint64_t payload = 0;
  for (const Block& b : rec.blocks) payload += 8 + b.bytes.size();
  body.u32(static_cast<std::uint32_t>(payload));
  for (const Block& b : rec.blocks) {
    body.u32(b.address);
    body.u32(static_cast<std::uint32_t>(b.bytes.size()));
    body.bytes(b.bytes);
  }
  const std::string& s = body.out();
  std::uint32_t crc = lockstep::crc32(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
  w.out().append(s);
  w.u32(crc);
}

// Where a record is, for messages: "step 3 instance 2", "step 3 pass 1", "step 3".
std::string record_place(const Record& r) {
  if (r.kind == RecordKind::kCtrl || r.kind == RecordKind::kPhys) return fmt::format("step {} instance {}", r.step, r.instance);
  if (r.kind == RecordKind::kFrame) return fmt::format("step {} pass {}", r.step, r.pass);
  return fmt::format("step {}", r.step);
}

}  // namespace

std::uint32_t state_log_record_header_size(std::uint32_t version) noexcept { return version >= 2 ? 24 : 20; }

const char* record_kind_name(RecordKind k) noexcept {
  switch (k) {
    case RecordKind::kStep: return "STEP";
    case RecordKind::kCtrl: return "CTRL";
    case RecordKind::kPhys: return "PHYS";
    case RecordKind::kFrame: return "FRAM";
  }
  return "????";
}

const Block* Record::find(GuestAddr address, std::uint32_t size) const noexcept {
  for (const Block& b : blocks)
    if (address >= b.address && std::uint64_t{address} + size <= b.end()) return &b;
  return nullptr;
}

Result<std::span<const std::uint8_t>> Record::bytes_at(GuestAddr address, std::uint32_t n) const {
  const Block* b = find(address, n);
  if (!b)
    return Error::make(Errc::kNotFound, "{} record of {}: no block holds 0x{:x}..0x{:x}", record_kind_name(kind),
                       record_place(*this), address, std::uint64_t{address} + n);
  return std::span<const std::uint8_t>(b->bytes).subspan(address - b->address, n);
}

Status RecordOrder::close_step(std::string_view what) {
  for (const auto& [instance, state] : instances_)
    if (!state.second)
      return Error::make(Errc::kMalformed, "{}: CTRL record at offset 0x{:x} (step {} instance {}) has no PHYS record "
                         "before the step ends", what, state.first, step_, instance);
  instances_.clear();
  step_record_ = instance_record_ = false;
  return {};
}

Status RecordOrder::add(const Record& r, std::string_view what, std::uint64_t offset) {
  auto bad = [&](std::string_view why) {
    return Error::make(Errc::kMalformed, "{}: {} record at offset 0x{:x} ({}): {}", what, record_kind_name(r.kind),
                       offset, record_place(r), why);
  };
  if (r.kind == RecordKind::kFrame) {
    // The end of a pass: the step before it is over, and the steps it ran are counted.
    if (last_pass_ && r.pass != *last_pass_ + 1)
      return bad(fmt::format("pass {} after pass {}; passes are consecutive", r.pass, *last_pass_));
    if (after_frame_ && r.step < frame_step_)
      return bad(fmt::format("counts {} steps after a pass that counted {}; steps never go back", r.step, frame_step_));
    if (started_ && !after_frame_ && r.step <= step_)
      return bad(fmt::format("counts {} steps run, but step {} ran before it", r.step, step_));
    if (started_) LOCKSTEP_TRY_STATUS(close_step(what));
    started_ = false;
    after_frame_ = true;
    frame_step_ = r.step;
    last_pass_ = r.pass;
    return {};
  }
  if (after_frame_ && r.step < frame_step_)
    return bad(fmt::format("comes after a pass that had run {} steps; steps never go back", frame_step_));
  after_frame_ = false;
  if (started_ && r.step < step_) return bad(fmt::format("comes after step {}; steps never go back", step_));
  if (!started_ || r.step != step_) {
    if (started_) LOCKSTEP_TRY_STATUS(close_step(what));
    started_ = true;
    step_ = r.step;
  }
  switch (r.kind) {
    case RecordKind::kStep:
      if (step_record_) return bad("a second STEP record for the step");
      if (instance_record_) return bad("the STEP record must come before the step's CTRL and PHYS records");
      step_record_ = true;
      break;
    case RecordKind::kCtrl: {
      instance_record_ = true;
      auto [it, fresh] = instances_.try_emplace(r.instance, offset, false);
      if (!fresh) return bad(fmt::format("a second CTRL record for this instance (the first at offset 0x{:x})", it->second.first));
      break;
    }
    case RecordKind::kPhys: {
      instance_record_ = true;
      auto it = instances_.find(r.instance);
      if (it == instances_.end()) return bad("no CTRL record of this instance before it in the step");
      if (it->second.second) return bad("a second PHYS record for this instance");
      it->second.second = true;
      break;
    }
    case RecordKind::kFrame:
      break;  // handled above
  }
  return {};
}

Status RecordOrder::finish(std::string_view what) { return close_step(what); }

Result<StateLog> decode_state_log(std::span<const std::uint8_t> bytes, std::string_view what,
                                  const StateLogLimits& limits) {
  if (bytes.size() < kStateLogHeaderSize)
    return Error::make(bytes.size() >= 8 && std::equal(kStateLogMagic.begin(), kStateLogMagic.end(), bytes.begin())
                           ? Errc::kTruncated
                           : (bytes.size() < 8 ? Errc::kTruncated : Errc::kBadMagic),
                       "{}: {} bytes, shorter than a state log's {}-byte header", what, bytes.size(), kStateLogHeaderSize);
  StateLog log;
  std::uint32_t header_size = 0;
  LOCKSTEP_TRY(log.header, parse_header(bytes.first(kStateLogHeaderSize), what, &header_size));
  if (header_size > bytes.size())
    return Error::make(Errc::kTruncated, "{}: the header claims {} bytes, the file has {}", what, header_size, bytes.size());
  std::uint64_t at = header_size;
  const std::uint32_t head_size = state_log_record_header_size(log.header.version);
  RecordOrder order;
  while (at < bytes.size()) {
    if (log.records.size() >= limits.max_records)
      return Error::make(Errc::kLimit, "{}: more than {} records", what, limits.max_records);
    if (bytes.size() - at < head_size)
      return Error::make(Errc::kTruncated, "{}: record at offset 0x{:x}: {} bytes left, a record header needs {}", what,
                         at, bytes.size() - at, head_size);
    auto head = bytes.subspan(at, head_size);
    LOCKSTEP_TRY(RecordHead h, parse_record_head(head, log.header.version, what, at, limits));
    const std::uint64_t body_at = at + head_size;
    if (bytes.size() - body_at < std::uint64_t{h.payload} + 4)
      return Error::make(Errc::kTruncated, "{}: {} record at offset 0x{:x} (step {}): {} payload bytes and a CRC announced, "
                         "{} left", what, record_kind_name(h.kind), at, h.step, h.payload, bytes.size() - body_at);
    auto payload = bytes.subspan(body_at, h.payload);
    std::uint32_t crc;
    std::memcpy(&crc, bytes.data() + body_at + h.payload, 4);
    LOCKSTEP_TRY(Record rec, parse_record_body(h, head, payload, crc, what, at, limits));
    LOCKSTEP_TRY_STATUS(order.add(rec, what, at));
    log.records.push_back(std::move(rec));
    at = body_at + h.payload + 4;
  }
  LOCKSTEP_TRY_STATUS(order.finish(what));
  return log;
}

Result<StateLog> read_state_log(const std::filesystem::path& path, const StateLogLimits& limits) {
  LOCKSTEP_TRY(auto bytes, read_file(path, limits.max_file_bytes));
  LOCKSTEP_TRY(StateLog log, decode_state_log(bytes, path.string(), limits));
  log.sha256 = to_hex(sha256(bytes));
  return log;
}

std::vector<std::uint8_t> encode_state_log_header(const StateLogHeader& header) {
  StateLog empty;
  empty.header = header;
  return encode_state_log(empty);
}

void append_encoded_record(const Record& rec, std::uint32_t version, std::vector<std::uint8_t>& out) {
  ByteWriter w;
  put_record(w, rec, version);
  out.insert(out.end(), w.out().begin(), w.out().end());
}

std::vector<std::uint8_t> encode_state_log(const StateLog& log) {
  ByteWriter w;
  w.bytes(kStateLogMagic);
  w.u32(log.header.version);
  w.u32(kStateLogHeaderSize);
  std::array<std::uint8_t, kProducerBytes> producer{};
  std::memcpy(producer.data(), log.header.producer.data(), std::min(log.header.producer.size(), kProducerBytes));
  w.bytes(producer);
  for (const Record& rec : log.records) put_record(w, rec, log.header.version);
  const std::string& s = w.out();
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

Result<StateLogReader> StateLogReader::open(const std::filesystem::path& path, const StateLogLimits& limits) {
  StateLogReader r;
  r.what_ = path.string();
  r.limits_ = limits;
  LOCKSTEP_TRY_STATUS(require_regular_file(path));  // a FIFO would block the open below
  r.in_.open(path, std::ios::binary);
  if (!r.in_) return Error::make(Errc::kIo, "{}: cannot open", r.what_);
  std::array<std::uint8_t, kStateLogHeaderSize> head{};
  r.in_.read(reinterpret_cast<char*>(head.data()), head.size());
  const auto got = static_cast<std::size_t>(r.in_.gcount());
  if (got < head.size()) {
    bool magic = got >= 8 && std::equal(kStateLogMagic.begin(), kStateLogMagic.end(), head.begin());
    return Error::make(magic || got < 8 ? Errc::kTruncated : Errc::kBadMagic,
                       "{}: {} bytes, shorter than a state log's {}-byte header", r.what_, got, kStateLogHeaderSize);
  }
  std::uint32_t header_size = 0;
  LOCKSTEP_TRY(r.header_, parse_header(head, r.what_, &header_size));
  r.in_.seekg(header_size);
  if (!r.in_) return Error::make(Errc::kTruncated, "{}: the header claims {} bytes", r.what_, header_size);
  r.offset_ = header_size;
  return r;
}

Result<std::optional<Record>> StateLogReader::next() {
  std::vector<std::uint8_t> head(state_log_record_header_size(header_.version));
  in_.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  const auto got = static_cast<std::size_t>(in_.gcount());
  if (got == 0) {
    LOCKSTEP_TRY_STATUS(order_.finish(what_));
    return std::optional<Record>{};
  }
  if (got < head.size())
    return Error::make(Errc::kTruncated, "{}: record at offset 0x{:x}: {} bytes left, a record header needs {}", what_,
                       offset_, got, head.size());
  if (records_ >= limits_.max_records) return Error::make(Errc::kLimit, "{}: more than {} records", what_, limits_.max_records);
  LOCKSTEP_TRY(RecordHead h, parse_record_head(head, header_.version, what_, offset_, limits_));
  std::vector<std::uint8_t> payload(std::size_t{h.payload} + 4);  // bounded by max_record_bytes
  in_.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(payload.size()));
  if (static_cast<std::size_t>(in_.gcount()) < payload.size())
    return Error::make(Errc::kTruncated, "{}: {} record at offset 0x{:x} (step {}): {} payload bytes and a CRC announced, "
                       "{} left", what_, record_kind_name(h.kind), offset_, h.step, h.payload, in_.gcount());
  std::uint32_t crc;
  std::memcpy(&crc, payload.data() + h.payload, 4);
  LOCKSTEP_TRY(Record rec,
               parse_record_body(h, head, std::span(payload).first(h.payload), crc, what_, offset_, limits_));
  LOCKSTEP_TRY_STATUS(order_.add(rec, what_, offset_));
  offset_ += head.size() + h.payload + 4;
  ++records_;
  return std::optional<Record>(std::move(rec));
}

}  // namespace lockstep::capture
