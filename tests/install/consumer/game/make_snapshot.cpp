// The consumer's "original", as a snapshot: sum() at 0x00401000 (game/sum.toml), its two globals,
// a stack and one thread. Usage: make_snapshot OUT.lks
#include <cstdio>
#include <cstring>

#include "lockstep/load/load.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_snapshot OUT.lks\n");
    return 2;
  }
  using namespace lockstep::harness;
  // sum(a, b), cdecl:  mov eax,[esp+4]; add eax,[esp+8]; add eax,[0x00600000]; mov [0x00600004],eax; ret
  const std::uint8_t code[] = {0x8b, 0x44, 0x24, 0x04, 0x03, 0x44, 0x24, 0x08, 0x03, 0x05, 0x00,
                               0x00, 0x60, 0x00, 0xa3, 0x04, 0x00, 0x60, 0x00, 0xc3};
  Snapshot s;
  Region text{0x00401000, std::vector<std::uint8_t>(0x1000, 0xcc), kProtRead | kProtExec, "text"};
  std::memcpy(text.bytes.data(), code, sizeof code);
  Region data{0x00600000, std::vector<std::uint8_t>(0x1000, 0), kProtRead | kProtWrite, "data"};
  data.bytes[0] = 7;  // bias
  Region stack{0x7ff00000, std::vector<std::uint8_t>(0x10000, 0), kProtRead | kProtWrite, "[stack]"};
  s.regions = {text, data, stack};
  Thread t;
  t.tid = 1;
  t.esp = 0x7ff0f000;
  t.cs = 0x23;
  t.ds = t.es = t.ss = 0x2b;
  t.x87.control = 0x037f;
  s.threads = {t};
  if (auto st = save_snapshot(s, argv[1]); !st.ok()) {
    std::fprintf(stderr, "make_snapshot: %s\n", st.error().message.c_str());
    return 1;
  }
  return 0;
}
