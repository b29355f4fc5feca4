// PE32 images (the original's .EXE on disc): parsed, mapped alone into a snapshot, or mapped over a
// snapshot taken from the running process.
//
// Layout: Microsoft's PE format specification. Only i386 PE32 (Machine 0x14c,
// optional header magic 0x10b) is read. Images are never relocated: lockstep maps an image at its
// preferred ImageBase, and mapping it over a snapshot that holds the module elsewhere is an error
// naming both bases (Watcom's POD and Wine's loader both keep the .EXE at its ImageBase).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lockstep/base/result.hpp"
#include "lockstep/snapshot/snapshot.hpp"

namespace lockstep::harness {

/// Named maximums for what is read from a PE file (beyond them: Errc::kLimit).
struct Pe32Limits {
  std::uint32_t max_sections = 96;                 ///< the PE format's own limit
  /// SizeOfImage (bytes): a mapped image is allocated whole, so this bounds the memory a file can make
  /// lockstep allocate (WINPOD.EXE is about 1 MiB).
  std::uint32_t max_image_size = 64u << 20;
  std::uint32_t max_import_dlls = 4096;            ///< import descriptors
  std::uint32_t max_imports_per_dll = 65536;       ///< thunks in one descriptor
  std::uint32_t max_name_bytes = 4096;             ///< one DLL or function name
  std::uint64_t max_file_bytes = std::uint64_t{1} << 30;  ///< load_pe32(): largest file read
};

/// One section header, with where it lands.
struct Pe32Section {
  std::string name;                 ///< ".text" (up to 8 bytes, NULs stripped)
  std::uint32_t virtual_address = 0;  ///< RVA
  std::uint32_t virtual_size = 0;
  std::uint32_t raw_offset = 0;     ///< PointerToRawData
  std::uint32_t raw_size = 0;       ///< SizeOfRawData
  std::uint32_t characteristics = 0;
  std::uint8_t prot = kProtRead;    ///< from characteristics: 0x20000000 X, 0x40000000 R, 0x80000000 W
  GuestAddr address = 0;            ///< ImageBase + VirtualAddress
  std::uint32_t mapped_size = 0;    ///< align_up(max(VirtualSize, SizeOfRawData), SectionAlignment)
  /// Bytes a loader copies from the file (min(SizeOfRawData, VirtualSize), or SizeOfRawData when
  /// VirtualSize is 0); the rest of mapped_size is zero.
  std::uint32_t file_bytes = 0;

  bool writable() const noexcept { return prot & kProtWrite; }
};

/// One imported function and the IAT slot the loader fills with its address.
struct Pe32Import {
  GuestAddr iat_slot = 0;     ///< ImageBase + FirstThunk + 4*i
  std::string dll;            ///< "KERNEL32.dll", as the file spells it
  std::string name;           ///< "ExitProcess"; empty when imported by ordinal
  std::uint16_t ordinal = 0;  ///< by-ordinal imports; the hint otherwise
  bool by_ordinal = false;

  /// "KERNEL32.dll!ExitProcess" or "WSOCK32.dll!#23": the label for the IAT slot.
  std::string label() const;
};

struct Pe32Image {
  std::string what;  ///< the file's name in messages
  std::uint32_t image_base = 0;
  std::uint32_t entry_rva = 0;
  std::uint32_t section_alignment = 0, file_alignment = 0;
  std::uint32_t size_of_image = 0, size_of_headers = 0;
  std::uint16_t characteristics = 0, dll_characteristics = 0;
  std::uint32_t time_date_stamp = 0;
  std::vector<Pe32Section> sections;
  std::vector<Pe32Import> imports;
  std::vector<std::uint8_t> file;  ///< the whole file (sections are copied out of it when mapped)
  std::string sha256;              ///< of the file, hex

  /// (IAT slot address, "dll!name") for every import, in table order: labels for the profile/labels code.
  std::vector<std::pair<GuestAddr, std::string>> import_labels() const;
  /// The section holding address `a`, or nullptr.
  const Pe32Section* section_at(GuestAddr a) const noexcept;
};

/// Parses a PE32 image. Errors: kBadMagic (no MZ/PE), kUnsupported (not i386 PE32), kTruncated
/// (headers, sections or tables past the end), kLimit (counts past `limits`), kMalformed (sections
/// overlapping, wrapping past 4 GiB, or outside SizeOfImage; an import table RVA in no section).
Result<Pe32Image> parse_pe32(std::span<const std::uint8_t> bytes, std::string_view what,
                             const Pe32Limits& limits = {});
Result<Pe32Image> load_pe32(const std::filesystem::path& path, const Pe32Limits& limits = {});

/// Where snapshot_from_image puts what a loader would have made around the image: one block of
/// `kImageThreadBlockSize` bytes plus the import traps, at the first of `kImageThreadBlockCandidates`
/// that stays `kImageThreadBlockGap` bytes clear of the image on both sides.
inline constexpr GuestAddr kImageThreadBlockCandidates[] = {0x7f000000, 0x50000000, 0x20000000, 0x01000000};
inline constexpr std::uint32_t kImageThreadBlockGap = 0x100000;
inline constexpr std::uint32_t kImageStackSize = 0x40000;  ///< block + 0: the stack (rw-), esp 0x100 below its top
inline constexpr std::uint32_t kImageTebOffset = 0x41000;  ///< after a guard page: the TEB (rw-, one page)
inline constexpr std::uint32_t kImagePebOffset = 0x42000;  ///< the PEB (rw-, one page)
inline constexpr std::uint32_t kImageTrapsOffset = 0x44000;  ///< after a guard page: the import traps (r-x)
inline constexpr std::uint32_t kImageThreadBlockSize = kImageTrapsOffset;
/// The selectors the synthesized thread holds: Windows' user code/data selectors and its TEB selector.
inline constexpr std::uint16_t kImageCs = 0x1b, kImageDs = 0x23, kImageFs = 0x3b;
/// The name every import-trap region starts with (import_trap_at recognises the region by it).
inline constexpr std::string_view kImportTrapsRegionName = "import traps";

/// The image alone, as a loader lays it out, with one synthesized thread so that its functions can
/// be called (readers.md, "Images alone"):
/// - the headers (SizeOfHeaders bytes, read-only) at ImageBase and each section at ImageBase + RVA with
///   its protection, zero-filled past its file bytes;
/// - a stack of kImageStackSize bytes, a TEB (self pointer at +0x18, stack base +4 and limit +8, PEB
///   pointer +0x30, the 64 TLS slots at +0xe10, zeroed), a PEB (ImageBaseAddress at +8);
/// - every IAT slot pointing at its own trap in the import-traps region: an int3 followed by the IAT
///   slot (4 bytes) and the import's label ("KERNEL32.dll!GetTickCount", NUL-terminated). A [[stub]]
///   with `pointer` = the IAT slot sits on the trap; an import without one stops the call there.
/// - threads[0]: esp near the stack's top, eip the entry point, cs/ds/es/ss/fs Windows' selectors,
///   fs_base the TEB, FPU state not valid (a call starts with the profile's fpu_control_word).
/// meta.format is "pe32".
Snapshot snapshot_from_image(const Pe32Image& image);

/// The image's pieces alone, as a loader maps them and as the file holds them (IAT slots unresolved):
/// what snapshot_from_image starts from, and a stand-in for a process's copy of the image. No threads.
Snapshot snapshot_of_image_sections(const Pe32Image& image);

/// The import whose trap is at `eip` ("KERNEL32.dll!GetTickCount" and its IAT slot), when `eip` is the
/// first byte of a trap in an import-traps region of `snapshot`; nullopt otherwise.
struct ImportTrap {
  std::string label;
  GuestAddr iat_slot = 0;
};
std::optional<ImportTrap> import_trap_at(const Snapshot& snapshot, GuestAddr eip);

/// One byte range where the image and the snapshot disagreed.
struct ImageDifference {
  GuestAddr begin = 0;
  std::uint32_t size = 0;
  std::string section;  ///< ".text", "(headers)"
  bool replaced = false;  ///< true: the file's bytes now stand (code, read-only); false: the snapshot's kept
};

/// What map_image_over() did.
struct MapOverReport {
  std::vector<ImageDifference> differences;  ///< every differing range, in address order
  std::uint64_t bytes_replaced = 0;          ///< differing bytes the file's bytes replaced
  std::uint64_t bytes_kept = 0;              ///< differing bytes in writable sections, the snapshot's kept
  std::uint64_t bytes_added = 0;             ///< bytes the snapshot lacked, taken from the file
  std::vector<std::string> notes;
};

/// Maps `image` over `snapshot`: for the headers and every non-writable section the file's bytes
/// replace the snapshot's (restoring code a recorder patched); writable sections keep the snapshot's
/// bytes (the running game's data, the resolved IAT). Ranges the snapshot lacks are added from the file.
/// Each section's range gets the section's protection. The report lists every byte range where the
/// two differed. The snapshot must hold the image at its ImageBase: if meta.modules lists a module
/// with the image's file name at another base, Errc::kUnsupported names both bases (no relocation).
/// Adds the module to meta.modules if absent and appends the report's notes to meta.notes.
Result<MapOverReport> map_image_over(Snapshot& snapshot, const Pe32Image& image);

}  // namespace lockstep::harness
