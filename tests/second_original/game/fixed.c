/* 16.16 fixed point. */
#include "crawl.h"

/* a x b in 16.16: the whole 64-bit product, shifted back (an arithmetic shift: toward minus infinity). */
int32_t CRAWL_CDECL fx_mul(int32_t a, int32_t b) { return (int32_t)(((int64_t)a * b) >> 16); }
