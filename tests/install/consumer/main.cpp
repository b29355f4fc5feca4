// Uses lockstep::harness from an installed prefix: writes a snapshot, reads it back, and checks that a
// corrupt file is refused with its error code.
#include <cstdio>
#include <fstream>

#include "lockstep/load/load.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  lockstep::harness::Snapshot s;
  s.regions.push_back({0x00400000, std::vector<std::uint8_t>(4096, 0xcc), lockstep::harness::kProtRead, "consumer"});
  s.threads.emplace_back();
  s.threads[0].x87.control = 0x027f;
  if (auto st = lockstep::harness::save_snapshot(s, argv[1]); !st.ok()) {
    std::fprintf(stderr, "consumer: save failed: %s\n", st.error().message.c_str());
    return 1;
  }
  auto back = lockstep::harness::load_snapshot(argv[1]);
  if (!back.ok() || !(*back == s)) {
    std::fprintf(stderr, "consumer: round trip failed\n");
    return 1;
  }
  { std::ofstream(argv[1], std::ios::binary | std::ios::trunc) << "NOTASNAP"; }
  auto bad = lockstep::harness::load_snapshot(argv[1]);
  if (bad.ok() || bad.error().code != lockstep::Errc::kBadMagic) {
    std::fprintf(stderr, "consumer: a corrupt file was not refused as bad-magic\n");
    return 1;
  }
  std::printf("consumer: ok (%zu region, control word 0x%04x)\n", back->regions.size(), back->threads[0].x87.control);
  return 0;
}
