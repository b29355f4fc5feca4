/* The props (port/CHOICES.md "Props"): the prop record, its contact points, the
 * global list, the hit flags, the slant record and the functions' addresses. The offsets the documents
 * give are marked; the rest is chosen (the props' entries of the table of choices).
 *
 * Written independently of the port: the two meet only in memory bytes. */
#ifndef STANDIN_PROPS_H
#define STANDIN_PROPS_H

#include "objects.h"

/* ---- prop record, 0xd0 bytes (3.11; types and props alike) ------------------------------------ */
#define PROP_SIZE       0xd0
#define PROP_OBJECT     0x00  /* u32: the file's object word, not read by the physics (chosen) */
#define PROP_MASS       0x1c
#define PROP_FRICTION   0x20
#define PROP_INERTIA    0x24  /* vec3, about the prop's axes */
#define PROP_POINT_COUNT 0x30
#define PROP_HULL       0x34  /* u32: address of its hull (A01) */
#define PROP_CHAIN      0x38  /* u32: its macro chain, 0 = none (elements as the parts') */
#define PROP_HEALTH     0x3c
#define PROP_MATRIX     0x40  /* 9 words, row by row: axis k is column k (A26) */
#define PROP_REST_POINT 0x64  /* vec3: the point of the plane it rests on */
#define PROP_REST_FACE  0x70  /* u32: the face (or the slant record) whose +0 is that plane's normal */
#define PROP_FORCE      0x74  /* vec3 world: impulses add to it, motion uses and clears it */
#define PROP_TORQUE     0x80  /* vec3 world */
#define PROP_VELOCITY   0x8c
#define PROP_POSITION   0x98
#define PROP_SPIN       0xa4  /* vec3, about the prop's axes */
#define PROP_MACRO_LIST 0xb0  /* u32 from the file, not read by the physics */
#define PROP_WALL_FACE  0xb4  /* u32: the wall face it touches, 0 = none (chosen) */
#define PROP_POINTS     0xb8  /* u32: address of the contact points (A02) */
#define PROP_WALL_POINT 0xbc  /* vec3: that face's corner 0 (chosen) */
#define PROP_HELD       0xc8  /* u32: 1 = a neighbour handed it its rest plane this pass (chosen) */

/* ---- contact point, 0x40 bytes (3.12; offsets chosen, G16, A29) ------------------------------ */
#define POINT_REC_SIZE  0x40
#define PP_RADIUS       0x00
#define PP_OFFSET       0x04  /* vec3, the prop's axes, from its centre of mass */
#define PP_PLACE        0x10  /* vec3 world */
#define PP_MASS         0x1c
#define PP_FORCE        0x20  /* vec3: its weight */
#define PP_PUSH         0x2c  /* vec3: the planes' pushes */
#define PP_SECTOR       0x38  /* u32: address of its sector */
#define PP_FLAGS        0x3c  /* u32: PP_ON_GROUND | PP_ON_WALL */
#define PP_ON_GROUND    1
#define PP_ON_WALL      2

/* ---- the list and its companions (A18, A30) -------------------------------------- */
#define POD_PROP_COUNT  0x621298u  /* i32 */
#define POD_PROP_LIST   0x62129cu  /* u32: address of prop record 0 */
#define POD_PROP_HIT    0x6212a0u  /* u8 per prop (chosen size) */
#define POD_PROP_SLANT  0x4f9440u  /* normal (vec3), point (vec3): the slant record (F114) */
#define POD_PROP_ENV    0x651000u  /* the stand-in's environment bytes (chosen) */
#define POD_PROP_FREE   0x652000u  /* the free memory the stand-in's build starts from (chosen) */
#define PROPS_MAX       32
#define PROP_TYPE_BYTES 0x40      /* a type's bytes before its points, 0x14 each */
#define PROP_POINT_BYTES 0x14
#define PROP_BYTES      0x38      /* a prop's bytes */

/* ---- constants (port/CHOICES.md "Props") --------------------------------------------------------------- */
#define PROP_GRAVITY    0x2d      /* a point's weight = its mass x 0x2d (F115) */
#define PROP_SLANT_MIN  0xe28f    /* 0.885 (F114) */
#define PROP_SPIN_KEPT  0xea7f    /* 0.916 a step on the ground (F119) */
#define PROP_SLOW       0x8000    /* "slow": speed and spin under 0.5 (chosen, G16) */
#define PROP_FLOOR_BELOW 0x24a3d  /* a ground face counts down to 2.29 below the position, as the wheels' */
#define PROP_SETTLE_POINTS 3      /* F120 */
#define PROP_FALL_BELOW 0x80000   /* 8 (F121) */

/* ---- functions (Watcom; argument orders chosen) -------------------------------------------- */
#define FN_PROP_KIND    0x46a780u  /* eax=bytes, edx=record, ebx=free -> eax=free after */
#define FN_PROP_BUILD   0x468cfcu  /* eax=environment, edx=free -> eax=free after */
#define FN_PROP_CENTRE  0x454654u  /* eax=record */
#define FN_PROP_FACES   0x4547a4u  /* eax=prop record */
#define FN_PROP_IMPULSE 0x4214b4u  /* eax=prop record, edx=normal, ebx=impulse, ecx=point */
#define FN_PROP_CAR_HIT 0x4215a8u  /* eax=racer, edx=prop number -> eax=1 contact */
#define FN_PROP_KNOCK   0x421750u  /* eax=prop number */
#define FN_PROP_MOTION  0x454a98u  /* eax=prop number */
#define FN_PROP_REMOVE  0x4adab0u  /* eax=prop number */

static inline uint32_t prop_record(int32_t i) { return U32(POD_PROP_LIST, 0) + (uint32_t)i * PROP_SIZE; }

/* The stand-in's environment: its bytes at 0x651000 and props::build on them (physics/props.c); the
 * race's set-up calls it after the track. */
void props_setup(void);

#endif /* STANDIN_PROPS_H */
