// The recorder's state log (record_log.hpp): whole steps only, written through a temporary file.
#include "record_log.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <cstring>

#include "lockstep/base/io.hpp"

namespace lockstep::capture {
namespace {

constexpr std::size_t kBufferBytes = 1u << 20;  ///< written to the file in pieces of about this size
constexpr std::size_t kMaxQueuedBytes = 64u << 20;  ///< the recording waits for the disk beyond this

}  // namespace

/// A thread that writes byte buffers to a file in order; the first write error stops it and is
/// returned by every later push() and by finish(). Its thread blocks every signal (the tracer takes
/// SIGINT and SIGCHLD with sigtimedwait; a writer must never be the thread a signal is delivered to).
class LogWriter {
 public:
  LogWriter(int fd, std::string what) : fd_(fd), what_(std::move(what)) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    thread_ = std::thread([this] { run(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;
  ~LogWriter() { (void)finish(); }

  Status push(std::vector<std::uint8_t> bytes) {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return queued_ < kMaxQueuedBytes || error_; });
    if (error_) return *error_;
    queued_ += bytes.size();
    queue_.push_back(std::move(bytes));
    cv_.notify_all();
    return {};
  }
  /// Waits until everything pushed is written (or failed); the thread ends.
  Status finish() {
    {
      std::lock_guard lock(m_);
      closing_ = true;
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    if (error_) return *error_;
    return {};
  }

 private:
  void run() {
    for (;;) {
      std::vector<std::uint8_t> bytes;
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
        if (queue_.empty()) return;
        bytes = std::move(queue_.front());
        queue_.pop_front();
      }
      Status written = write_all(bytes);
      std::lock_guard lock(m_);
      queued_ -= bytes.size();
      if (!written.ok()) {
        error_ = std::move(written).error();
        queue_.clear();
      }
      cv_.notify_all();
      if (error_) return;
    }
  }
  Status write_all(const std::vector<std::uint8_t>& bytes) {
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Error::make(Errc::kIo, "writing {}: {}", what_, n < 0 ? std::strerror(errno) : "no space");
      done += static_cast<std::size_t>(n);
    }
    return {};
  }

  int fd_;
  std::string what_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::vector<std::uint8_t>> queue_;
  std::size_t queued_ = 0;
  bool closing_ = false;
  std::optional<Error> error_;
  std::thread thread_;
};

Result<RecordLog> RecordLog::open(const std::filesystem::path& path, const std::string& producer,
                                  bool drop_first_step) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    return Error::make(Errc::kUsage, "{} is not a regular file: a state log replaces a file whole", path.string());
  RecordLog f;
  f.path_ = path;
  f.temp_ = (path.parent_path() / temp_sibling_name(path)).string();  // beside it: the rename stays in one folder
  f.dropping_ = drop_first_step;
  f.fd_ = ::open(f.temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd_ < 0) return Error::make(Errc::kIo, "cannot create {}: {}", f.temp_, std::strerror(errno));
  StateLogHeader h;  // the current version: a FRAM record's pass in its own field
  h.version = kStateLogVersion;
  h.producer = producer.substr(0, 16);
  f.buffer_ = encode_state_log_header(h);
  f.writer_ = std::make_unique<LogWriter>(f.fd_, f.temp_);
  return f;
}

RecordLog::RecordLog() = default;
RecordLog::RecordLog(RecordLog&& o) noexcept { *this = std::move(o); }

RecordLog& RecordLog::operator=(RecordLog&& o) noexcept {
  std::swap(fd_, o.fd_);
  std::swap(writer_, o.writer_);
  std::swap(path_, o.path_);
  std::swap(temp_, o.temp_);
  std::swap(buffer_, o.buffer_);
  std::swap(held_, o.held_);
  std::swap(dropping_, o.dropping_);
  std::swap(awaiting_step_, o.awaiting_step_);
  std::swap(bytes_, o.bytes_);
  std::swap(records_, o.records_);
  std::swap(dropped_, o.dropped_);
  std::swap(first_step_, o.first_step_);
  std::swap(last_step_, o.last_step_);
  return *this;
}

RecordLog::~RecordLog() {
  if (fd_ < 0) return;
  writer_.reset();  // its thread ends before the file is closed
  ::close(fd_);
  ::unlink(temp_.c_str());  // never committed: no half log is left behind
}

Status RecordLog::add(Record r) {
  if (awaiting_step_) {
    if (r.kind != RecordKind::kStep) {
      ++dropped_;
      return {};
    }
    awaiting_step_ = false;
  }
  if (!held_.empty() && r.step > held_.back().step) LOCKSTEP_TRY_STATUS(write_held());
  const bool closes = r.kind == RecordKind::kFrame;
  held_.push_back(std::move(r));
  if (closes) LOCKSTEP_TRY_STATUS(write_held());
  return {};
}

bool RecordLog::past(const Record& r, std::uint32_t steps) const noexcept {
  std::optional<std::uint32_t> first = first_step_;
  if (!first && !dropping_ && !held_.empty()) first = held_.front().step;
  if (!first) return false;
  const std::uint64_t end = std::uint64_t{*first} + steps;
  // A FRAM record's step counts the steps run before it: the one that says `end` closes the last step.
  return r.kind == RecordKind::kFrame ? r.step > end : r.step >= end;
}

Status RecordLog::write_held() {
  if (dropping_) {
    dropped_ += held_.size();
    held_.clear();
    dropping_ = false;
    return {};
  }
  for (const Record& r : held_) {
    if (!first_step_) first_step_ = r.step;
    last_step_ = r.step;
    append_encoded_record(r, kStateLogVersion, buffer_);
    ++records_;
  }
  held_.clear();
  return buffer_.size() >= kBufferBytes ? flush() : Status{};
}

Status RecordLog::flush() {
  if (buffer_.empty()) return {};
  bytes_ += buffer_.size();
  Status pushed = writer_->push(std::move(buffer_));
  buffer_.clear();
  return pushed;
}

Status RecordLog::commit() {
  // The last step is written when every instance in it that has a CTRL record has its PHYS record
  // too (the game ended between steps); else it was cut inside an instance's turn and is left out.
  std::map<std::int32_t, int> open_turns;
  for (const Record& r : held_)
    if (r.kind == RecordKind::kCtrl) ++open_turns[r.instance];
    else if (r.kind == RecordKind::kPhys && open_turns[r.instance] > 0) --open_turns[r.instance];
  const bool whole = std::all_of(open_turns.begin(), open_turns.end(), [](const auto& t) { return t.second == 0; });
  if (whole && !held_.empty()) LOCKSTEP_TRY_STATUS(write_held());
  dropped_ += held_.size();
  held_.clear();
  LOCKSTEP_TRY_STATUS(flush());
  LOCKSTEP_TRY_STATUS(writer_->finish());
  const bool synced = ::fsync(fd_) == 0;
  const int err = errno;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) {
    ::unlink(temp_.c_str());
    return Error::make(Errc::kIo, "writing {}: {}", temp_, std::strerror(synced ? errno : err));
  }
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) {
    ::unlink(temp_.c_str());
    return Error::make(Errc::kIo, "cannot rename {} to {}: {}", temp_, path_.string(), ec.message());
  }
  return {};
}

}  // namespace lockstep::capture
