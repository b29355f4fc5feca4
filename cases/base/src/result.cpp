#include "lockstep/base/result.hpp"

namespace lockstep {

const char* errc_name(Errc c) noexcept {
  switch (c) {
    case Errc::kIo: return "io";
    case Errc::kTruncated: return "truncated";
    case Errc::kBadMagic: return "bad-magic";
    case Errc::kBadVersion: return "bad-version";
    case Errc::kMalformed: return "malformed";
    case Errc::kLimit: return "limit";
    case Errc::kChecksum: return "checksum";
    case Errc::kUnsupported: return "unsupported";
    case Errc::kNotFound: return "not-found";
    case Errc::kUsage: return "usage";
    case Errc::kPermission: return "permission";
    case Errc::kGuestFault: return "guest-fault";
    case Errc::kMismatch: return "mismatch";
  }
  return "unknown";
}

int exit_code_for(Errc c) noexcept {
  switch (c) {
    case Errc::kMismatch: return kExitMismatch;
    case Errc::kGuestFault: return kExitGuestFault;
    case Errc::kIo:
    case Errc::kPermission: return kExitEnvironment;
    case Errc::kTruncated:
    case Errc::kBadMagic:
    case Errc::kBadVersion:
    case Errc::kMalformed:
    case Errc::kLimit:
    case Errc::kChecksum:
    case Errc::kUnsupported:
    case Errc::kNotFound:
    case Errc::kUsage: return kExitBadInput;
  }
  return kExitInternal;
}

}  // namespace lockstep
