/* The stale stack slot shared by forces::grip (0x417cec) and tyres::tyres (0x41af80).
 *
 * 000 ("Tyres"): at low speed the tyres test the skid flags against a slip ratio left on the stack
 * by an earlier point; for the first such point the slot holds what FUN_00417cec stored there, the
 * address of the step's force array. The stand-in reproduces it with a real stack slot: both
 * functions are called by the car step at the same stack depth, and both use the word at
 * [entry esp - STALE_SLOT_DEPTH] (entry esp: esp at the function's POD address, pointing at the return
 * address): grip stores the force array's address there, the tyres keep their slip ratio there and
 * read it on the low-speed path without writing it first.
 *
 * The entry thunk (thunks.S) pushes ecx, edx, then ecx, ebx, edx, eax, then calls the C body, so the
 * body's first (cdecl) argument sits at entry esp - 24. The depth 0x400 lies below every frame the
 * calls between grip and the tyres use (wheel drive, springs: well under 0x200 bytes). */
#ifndef STANDIN_STALE_SLOT_H
#define STANDIN_STALE_SLOT_H

#include <stdint.h>

#define STALE_SLOT_DEPTH 0x400
#define THUNK_ARG0_BELOW_ENTRY 24

/* The slot, from the address of the body's first parameter (which must be the thunk's eax word). */
#define STALE_SLOT(first_param) \
  (*(volatile uint32_t *)((uintptr_t)&(first_param) + THUNK_ARG0_BELOW_ENTRY - STALE_SLOT_DEPTH))

#endif
