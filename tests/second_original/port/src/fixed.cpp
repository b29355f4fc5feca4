// 16.16 fixed point.
#include "crawl/game.hpp"

namespace crawl {

// 0x401960: imul gives the 64-bit product in edx:eax, shrd keeps bits 16..47.
std::int32_t fx_mul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>((std::int64_t{a} * std::int64_t{b}) >> 16);
}

}  // namespace crawl
