/* A 16.16 fixed-point multiply: the 64-bit product shifted right by 16 (arithmetic: rounds toward
 * minus infinity), truncated to 32 bits, as Watcom code does it (imul; shrd eax, edx, 16).
 * fixmul_routine.c is compiled into the test PE and natively into the test that checks it. */
#ifndef LOCKSTEP_TESTS_FIXMUL_H
#define LOCKSTEP_TESTS_FIXMUL_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int32_t fixmul_c(int32_t a, int32_t b);
#ifdef __cplusplus
}
#endif
#endif
