/* Data the stand-in defines at POD's addresses (the generated linker script places each section at
 * the profile's address; see harness/profiles/pod.toml). Everything else at a POD address is reached
 * through standin.h's macros: the script reserves those blocks. */
#include <stdint.h>

#include "standin.h"

#define POD_DATA(name) __attribute__((section(".pod.d." #name), used))
#define POD_BSS(name) __attribute__((section(".bss.pod." #name), used))

/* 1.5 * 2^68: adding it to a sum leaves round(sum / 65536) in the low word of the double (F006). */
POD_DATA(round_constant) const double pod_round_constant = 442721857769029238784.0;
/* 2^-16, the "x 1/65536" before fistp (cross16's z, scale16_in_place). */
POD_DATA(inv65536) const double pod_inv65536 = 1.0 / 65536.0;

POD_DATA(recip_table_ptr) uint32_t pod_recip_table_ptr;   /* set by tables_build */
POD_DATA(sqrt_table_ptr) uint32_t pod_sqrt_table_ptr;
POD_DATA(tls_getter_ptr) uint32_t pod_tls_getter_ptr = FN_TLS_GETTER;
POD_DATA(time_get_time_ptr) uint32_t pod_time_get_time_ptr = FN_TIME_GET_TIME;  /* the scripted clock */
POD_DATA(chassis_search_counter) int32_t pod_chassis_search_counter;
POD_DATA(race_block) uint8_t pod_race_block[0x40];

POD_BSS(sector_count) int32_t pod_sector_count;
POD_BSS(sector_table) uint32_t pod_sector_table;
POD_BSS(smoke) uint8_t pod_smoke[0x410];
POD_BSS(sound_fd) int32_t pod_sound_fd;
POD_BSS(racer_counts) int32_t pod_racer_counts[3];
POD_BSS(driver) uint8_t pod_drivers[NUM_RACERS * DRIVER_SIZE];
POD_BSS(frame_time) uint8_t pod_frame_time[FRAME_SIZE];
POD_BSS(surface) uint8_t pod_surfaces[NUM_SURFACES * SURFACE_SIZE];
POD_BSS(car) uint8_t pod_cars[NUM_RACERS * CAR_SIZE];
POD_BSS(sines) int32_t pod_sines[SINE_COUNT];
POD_BSS(recip_table) int32_t pod_recip_table[RECIP_MAX - RECIP_MIN + 1];
POD_BSS(sqrt_table) uint32_t pod_sqrt_table[SQRT_COUNT];

/* The thread's C library block that the TLS getter (0x7f0000) returns; rand's seed at +0x10 starts
 * at 1, as a C library's does. */
__thread uint32_t standin_crt_block[16] = {0, 0, 0, 0, 1};
