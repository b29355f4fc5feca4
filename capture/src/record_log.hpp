// The state log a recorder writes (private to the capture layer; capture/docs/record.md, "The log"):
// records appended to a temporary sibling of the target and renamed over it at the end, so the target
// is only ever replaced by a whole log; and records held until their step is whole, so the log never
// ends inside a step (a CTRL record without its PHYS) however the recording ends. The file is
// written by a thread of its own, so that the game does not wait at a breakpoint for the disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/capture/state_log.hpp"

namespace lockstep::capture {

class LogWriter;

class RecordLog {
 public:
  /// Creates the temporary file and writes the header. `drop_first_step`: the recording attached to a
  /// running process, so the first step it sees may have begun before: that step is left out.
  static Result<RecordLog> open(const std::filesystem::path& path, const std::string& producer, bool drop_first_step);
  RecordLog();
  RecordLog(RecordLog&& o) noexcept;
  RecordLog& operator=(RecordLog&& o) noexcept;
  RecordLog(const RecordLog&) = delete;
  RecordLog& operator=(const RecordLog&) = delete;
  /// Removes the temporary file unless commit() renamed it.
  ~RecordLog();

  /// The log begins at its first STEP record: what the game recorded before its first simulation
  /// step (its set-up, e.g. a settling that runs the car step) belongs to no step of the log and is
  /// left out, counted. Set when the chosen points record STEP.
  void begin_at_first_step_record() noexcept { awaiting_step_ = true; }
  /// Holds `r`; a record of a later step (or a FRAM record, which closes its step) makes the
  /// records held before it whole, and they are written (or, for the first step of an attached
  /// recording, left out).
  Status add(Record r);
  /// Whether `r` would begin a step that lies `steps` steps past the first step the log holds
  /// (the recording stops before it).
  bool past(const Record& r, std::uint32_t steps) const noexcept;
  /// Whether the records held now will be written when whole (false while the first step of an
  /// attached recording is being left out).
  bool keeping() const noexcept { return !dropping_; }
  /// Whether `r` will be written once its step is whole (keeping(), or `r` ends the step left out).
  bool will_keep(const Record& r) const noexcept {
    if (awaiting_step_ && r.kind != RecordKind::kStep) return false;
    return !dropping_ || (!held_.empty() && r.step > held_.back().step);
  }
  /// Writes the last step if no instance's turn in it is cut (a CTRL record without its PHYS), else
  /// leaves it out; flushes, syncs and renames over the target.
  Status commit();

  std::uint64_t records() const noexcept { return records_; }
  std::uint64_t bytes() const noexcept { return bytes_ + buffer_.size(); }
  std::uint64_t dropped() const noexcept { return dropped_; }
  std::optional<std::uint32_t> first_step() const noexcept { return first_step_; }
  std::optional<std::uint32_t> last_step() const noexcept { return last_step_; }

 private:
  Status write_held();
  bool awaiting_step_ = false;
  Status flush();

  int fd_ = -1;
  std::unique_ptr<LogWriter> writer_;  ///< writes the encoded records while the game runs on
  std::filesystem::path path_;
  std::string temp_;
  std::vector<std::uint8_t> buffer_;
  std::vector<Record> held_;
  bool dropping_ = false;
  std::uint64_t bytes_ = 0, records_ = 0, dropped_ = 0;
  std::optional<std::uint32_t> first_step_, last_step_;
};

}  // namespace lockstep::capture
