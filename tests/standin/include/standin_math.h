/* The original's inline 16.16 idioms (F003-F005), as inline asm so the stand-in's code has the
 * original's instructions: imul + shrd for the multiply; idiv, or the reciprocal table for |b| <= 32,
 * for the divide. Exact definitions: port/CHOICES.md, "Arithmetic layer and tables". */
#ifndef STANDIN_MATH_H
#define STANDIN_MATH_H

#include <stdint.h>

#include "standin.h"

/* mul16(a, b) = bits 16..47 of the 64-bit product: imul, shrd eax, edx, 16. */
static inline int32_t mul16(int32_t a, int32_t b) {
  int32_t lo = a, hi;
  __asm__("imull %[b]\n\tshrdl $16, %%edx, %%eax" : "+a"(lo), "=d"(hi) : [b] "rm"(b) : "cc");
  (void)hi;
  return lo;
}

/* div16(a, b) = (a << 16) / b: through the reciprocal table ([0x4ed42c], entry b, then bits 8..39 of
 * a * recip[b]) when -32 <= b <= 32 (recip[0] = 0, so a / 0 = 0); else idiv of the 64-bit a << 16,
 * truncated toward zero. The caller guarantees the idiv quotient fits in 32 bits (else #DE). */
static inline int32_t div16(int32_t a, int32_t b) {
  if (b >= -32 && b <= 32) {
    const int32_t *recip = (const int32_t *)PTR(U32(POD_RECIP_PTR, 0));
    int32_t lo = a, hi;
    __asm__("imull %[r]\n\tshrdl $8, %%edx, %%eax" : "+a"(lo), "=d"(hi) : [r] "rm"(recip[b]) : "cc");
    (void)hi;
    return lo;
  }
  int32_t lo = (int32_t)((uint32_t)a << 16), hi = a >> 16;  /* edx:eax = a << 16, sign-extended */
  __asm__("idivl %[b]" : "+a"(lo), "+d"(hi) : [b] "rm"(b) : "cc");
  return lo;
}

#endif /* STANDIN_MATH_H */
