/* smoke_emit (0x45d44c): one smoke particle into the ring at 0x5b0000, jittered by two rand() draws.
 * The only rand() user in the step (F169); nothing the physics reads depends on it. */
#include <stdint.h>

#include "internal.h"
#include "pod_call.h"

#define SMOKE_SLOTS 64

int32_t smoke_emit(uint32_t position, uint32_t amount, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t next = U32(POD_SMOKE, 0);
  uint32_t p = POD_SMOKE + 0x10 + (next % SMOKE_SLOTS) * 16;
  const vec3 *at = (const vec3 *)PTR(position);
  int32_t jx = (POD_CALL0(FN_RAND) & 0xff) - 128, jy = (POD_CALL0(FN_RAND) & 0xff) - 128;
  I32(p, 0) = at->x + jx * 64;
  I32(p, 4) = at->y + jy * 64;
  I32(p, 8) = at->z;
  I32(p, 12) = (int32_t)amount;
  U32(POD_SMOKE, 0) = next + 1;
  U32(POD_SMOKE, 4) += 1;
  return 0;
}
