/* The drawn objects, their parts and hulls, the contact record, and the addresses of the functions of
 * car against car and damage (port/CHOICES.md, "Car against car and damage", "Records"; A01).
 * The offsets the documents give are marked; the rest is chosen (port/CHOICES.md, "Car against car and damage").
 *
 * Written independently of the port: the two meet only in memory bytes. */
#ifndef STANDIN_OBJECTS_H
#define STANDIN_OBJECTS_H

#include "car_params.h"

/* ---- hull, 0x1c bytes (3.9) ------------------------------------------------------------------ */
#define HULL_SIZE    0x1c
#define HULL_HALF    0x00  /* vec3: half sizes */
#define HULL_RADIUS  0x0c  /* i32: sqrt(x^2 + y^2) of the x and y half sizes (F148) */
#define HULL_CENTRE  0x10  /* vec3 */

/* ---- race object, stride 0x80 at 0x61a6d0 (3.10) --------------------------------------------- */
#define OBJECT_PART_COUNT 0x00  /* i32: 10 */
#define OBJECT_PART_LIST  0x04  /* u32: address of 10 part addresses (chosen: addresses) */
#define OBJECT_OWN_HULL   0x10  /* the stand-in keeps the whole car's hull here (chosen) */
#define NUM_PARTS   10
#define NUM_BODY_PARTS 6
#define FIRST_WHEEL_PART 6      /* wheels 0..3 are parts 6..9 (F092) */

/* ---- part record (3.10; size and vertex fields chosen) ------------------------------------- */
#define PART_SIZE     0xa4
#define PART_VERTEX_COUNT 0x00  /* u32 (chosen) */
#define PART_VERTICES 0x04      /* u32: address of vec3 vertices in the object's frame (chosen) */
#define PART_HULL     0x34      /* u32: address of its hull (A01) */
#define PART_CHAIN    0x38      /* u32: address of its macro chain, 0 = none */
#define PART_HEALTH   0x3c      /* i32: 2,000,000 at the start (F101) */
#define PART_OFFSET   0x98      /* vec3: placement in the object's frame */

/* ---- macro chain element (3.10: macro, argument, next) ------------------------------------ */
#define CHAIN_SIZE     12
#define CHAIN_MACRO    0x0
#define CHAIN_ARGUMENT 0x4
#define CHAIN_NEXT     0x8

/* ---- contact record, 0x2c bytes (chosen), the pair's at 0x4f3380 ------------------------------ */
#define CONTACT_NORMAL   0x00  /* vec3: unit, from a's centre to b's */
#define CONTACT_OVERLAP  0x0c  /* i32: reach - distance (F091) */
#define CONTACT_POINT    0x10  /* vec3: midpoint of the facing corners */
#define CONTACT_SPREAD   0x1c  /* vec3: half the corners' x, y, z distances */
#define CONTACT_DISTANCE 0x28  /* i32: the centres' distance */
#define POD_CAR_CONTACT  0x4f3380u

/* ---- the stand-in's parts (addresses chosen; harness/profiles/pod.toml's instances) --------- */
#define POD_PARTS        0x640000u  /* part[22 r + j]: j 0..17 body sets 0..2, 18..21 wheels 0..3 */
#define POD_PART_HULLS   0x648000u  /* hull[22 r + j] */
#define POD_PART_CHAINS  0x64a000u  /* chain_element[12 r + j], j 0..11: sets 0 and 1 */
#define POD_PART_LISTS   0x64a800u  /* 10 x u32 per racer */
#define POD_PART_VERTICES 0x64b000u /* 8 x vec3 per part */
#define PARTS_PER_RACER  22
#define PART_VERTEX_STRIDE 0x60

/* ---- options (F098) -------------------------------------------------------------------------- */
#define POD_DAMAGE_VETO   0x633314u  /* damage only while this word is 0 (meaning not given, G15) */
#define POD_DAMAGE_OPTION 0x63334cu  /* 0 off, 2 the contact's parts, other values all six (A31) */

#define HEALTH_START  2000000        /* F101 */
#define DAMAGE_FROM   50000          /* half the impulse reaches it (F102) */
#define CONTACT_LOUD  0x2000         /* F097 */
#define SOUND_CONTACT 0x20           /* car +0x4f9 bit */
#define SOUND_SLOT_CONTACT 7

/* ---- car against car and damage ----------------------------------------------------------------- */
#define FN_HULL_BOX        0x4713c8u  /* eax=vertices, edx=count, ebx=hull */
#define FN_SQRT            0x4d3e90u  /* eax=low, edx=high -> eax */
#define FN_HULL_RADIUS     0x423b48u  /* eax=hull -> eax */
#define FN_PART_HULL       0x420300u  /* eax=part */
#define FN_PRISME          0x4203c8u  /* eax=object */
#define FN_CENTRE_DISTANCE 0x423fd8u  /* eax=a, edx=b -> eax */
#define FN_NORMAL          0x423c64u  /* eax=a, edx=b, ebx=out -> eax */
#define FN_HULL_TEST       0x420548u  /* eax=object a, edx=object b, ebx=contact -> eax */
#define FN_MARK_PARTS      0x4209c8u  /* eax=object, edx=car, ebx=contact -> eax */
#define FN_IMPULSE         0x420adcu  /* eax=car a, edx=car b, ebx=normal -> eax */
#define FN_CARRY           0x420b4cu  /* eax=car, edx=normal, ebx=impulse, ecx=contact point */
#define FN_PAIR            0x42127cu  /* eax=racer a, edx=racer b -> eax */
#define FN_COLLISIONS      0x42196cu
#define FN_WHEELS_HURT     0x415318u  /* eax=car, edx=bits */
#define FN_WHEEL_HURT      0x415270u  /* eax=car, edx=wheel */
#define FN_AXLE_HURT       0x4152acu  /* eax=car, edx=first wheel */
#define FN_TO_TEMPLATE     0x4545a8u  /* eax=part, edx=template */

/* axis k (0 forward, 1 left, 2 up) of an object: column k of its matrix, stored row by row */
static inline vec3 object_axis(uint32_t obj, int k) {
  const int32_t *m = PTR(obj + OBJECT_MATRIX);
  return (vec3){m[k], m[3 + k], m[6 + k]};
}

/* the stand-in's set-up of a racer's drawn object's parts (physics/parts_setup.c) */
void parts_setup(uint32_t object, int racer);

#endif /* STANDIN_OBJECTS_H */
