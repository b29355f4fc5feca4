#include "fixmul.h"

int32_t fixmul_c(int32_t a, int32_t b) {
  return (int32_t)(uint32_t)((uint64_t)((int64_t)a * (int64_t)b) >> 16);
}
