/* The stand-in's view of POD 2.8's memory: addresses, record layouts, access macros.
 *
 * The stand-in (tests/standin/README.md) lies at POD's addresses. Every address and offset here is
 * either the documents' (the physics, track-world and main-loop pages; ids F/G/C/A) or chosen and
 * recorded in port/CHOICES.md ("Addresses and layout", "Track", "Race, controls and frame time").
 * Written independently of the port: nothing here comes from port/.
 *
 * Records are reached the way Watcom code reaches them: a base address plus an offset. I32(p, off)
 * is the i32 at p + off, VEC(p, off) the three i32 (a 16.16 vector) there. Car parameters that the
 * documents do not place (G01) are the physics', in src/physics/car_params.h.
 *
 * C11 with GNU extensions (gcc -m32 -std=gnu11), 32-bit only.
 */
#ifndef STANDIN_H
#define STANDIN_H

#include <stdint.h>

#if !defined(__i386__) && !defined(STANDIN_HOST_CONSTANTS_ONLY)
#error "standin.h is for the 32-bit stand-in (gcc -m32)"
#endif

typedef int32_t fx;                          /* a 16.16 fixed-point number, 0x10000 = 1.0 */
typedef struct vec3 { fx x, y, z; } vec3;    /* three 16.16 words, 12 bytes */

#define FX_ONE 0x10000

/* ---- access to records by offset ------------------------------------------------------------ */
/* Code that must not move the C runtime's .text and .rodata (the race stores the torque curve's
 * address in every car, so the step log would change): placed after POD's last function by the
 * generated linker script (ldgen). A file that uses it keeps every function and constant out of .text
 * and .rodata: its helpers carry it too, and it has no const tables. */
#define STANDIN_CODE __attribute__((section(".pod.code"), noinline))
#define STANDIN_INLINE static inline __attribute__((always_inline))

#define AT(type, base, off) (*(type *)((uintptr_t)(base) + (uint32_t)(off)))
#define I32(base, off) AT(int32_t, base, off)
#define U32(base, off) AT(uint32_t, base, off)
#define I16(base, off) AT(int16_t, base, off)
#define U16(base, off) AT(uint16_t, base, off)
#define I8(base, off) AT(int8_t, base, off)
#define U8(base, off) AT(uint8_t, base, off)
#define VEC(base, off) (&AT(vec3, base, off))
#define ADDR(p) ((uint32_t)(uintptr_t)(p))   /* a guest address as a 32-bit word */
#define PTR(a) ((void *)(uintptr_t)(a))      /* a 32-bit word as a pointer */

/* ---- data blocks (port/CHOICES.md, "Addresses and layout") ------------------------------------ */
#define POD_TYRE_CURVE      0x4e9a78u  /* the tyre slip curve (car_params.h's words, F052) */
#define POD_RECIP_PTR       0x4ed42cu  /* [ ] = address of the reciprocal table's entry 0 (F013) */
#define POD_SQRT_PTR        0x4ed434u  /* [ ] = address of the square-root table's entry 0 (F012) */
#define POD_TLS_GETTER_PTR  0x4ed728u  /* [ ] = the TLS getter rand() calls */
#define POD_TIME_GET_TIME_PTR 0x4ed72cu /* [ ] = timeGetTime, frame_clock's clock (the import slot, chosen) */
#define POD_ROUND_M         0x4ee0c0u  /* double 1.5 * 2^68 (F006) */
#define POD_INV65536        0x4ee0c8u  /* double 2^-16 (chosen) */
#define POD_CHASSIS_COUNTER 0x4f3310u  /* i32, the chassis search's counter (F075) */
#define POD_RACE_BLOCK      0x4f8d44u  /* the race block, up to POD_RACE_BLOCK_END */
#define POD_RACE_BLOCK_END  0x4f9854u
#define POD_RACE_CLOCK      0x502740u  /* i32: the race clock, += the frame time once per pass (003 row 4) */
#define POD_SECTOR_COUNT    0x57bf74u  /* i32 */
#define POD_SECTOR_TABLE    0x57bf78u  /* [ ] = address of the first 0x3c sector record */
#define POD_SMOKE           0x5b0000u  /* smoke_emit's particle ring (chosen) */
#define POD_SOUND_FD        0x5c0000u  /* i32: the sound device's file descriptor (chosen) */
#define POD_HUMAN_COUNT     0x61d5bcu  /* i32, 1 (chosen reading of A35) */
#define POD_COMPUTER_COUNT  0x61d5c0u  /* i32, 7 */
#define POD_EXTRA_COUNT     0x61d5c4u  /* i32, 0 */
#define POD_TIME_TRIAL      0x61d5c8u  /* i32: 1 in a time trial, 0 in a race (chosen, F154) */
#define POD_DRIVERS         0x61f870u  /* 8 drivers of 0xb0 */
#define POD_STEP_UNIT       0x60bdfcu  /* i32 16.16 s: a frame longer than 3 x this is split (F154; 0x888 chosen) */
#define POD_PASS_FRAME_TIME 0x60be0cu  /* i32 16.16 s: frame_clock's frame time (ms x 65), the next pass's */
#define POD_CLOCK_LAST      0x60be10u  /* u32 ms: frame_clock's last timeGetTime reading (chosen) */
#define POD_FRAME           0x621b70u  /* the frame-time block, 0x10 bytes (chosen, G31) */
#define POD_SURFACES        0x62bc0cu  /* 16 surfaces of 12 bytes */
#define POD_CARS            0x630838u  /* 8 race cars of 0x558 (C01: 000's address) */
#define POD_SINES           0x72c704u  /* i32 sines[0..12868] (F014) */
#define POD_RECIP_STORAGE   0x7a0000u  /* recip[-16384..16383]; entry 0 at 0x7b0000 */
#define POD_SQRT_STORAGE    0x7c0000u  /* sqrt_table[0..0x7fff] */
#define POD_SCRIPTED_CLOCK  0x7f1000u  /* the stand-in's timeGetTime: +0 last reading (ms), +4 readings (chosen) */
#define POD_TRACK_HEAP      0x800000u  /* the track's records (chosen), up to POD_TRACK_HEAP_END */
#define POD_TRACK_HEAP_END  0x900000u

#define NUM_RACERS   8
#define CAR_SIZE     0x558
#define DRIVER_SIZE  0xb0
#define POINT_SIZE   0xd8
#define NUM_SURFACES 16
#define SURFACE_SIZE 12
#define SINE_COUNT   12869            /* entries 0..12868 */
#define RECIP_MIN    (-16384)
#define RECIP_MAX    16383
#define SQRT_COUNT   0x8000

#define CAR(i)    (POD_CARS + (uint32_t)(i) * CAR_SIZE)
#define DRIVER(i) (POD_DRIVERS + (uint32_t)(i) * DRIVER_SIZE)
#define SURFACE(n) (POD_SURFACES + (uint32_t)(n) * SURFACE_SIZE)

/* ---- the frame-time block at 0x621b70 (chosen, G31) ------------------------------------------- */
#define FRAME_DT       0x00  /* i32 16.16 s: this car step's time (the catch-up scales it in place) */
#define FRAME_SUM      0x04  /* i32: the frame-time sum 0x621b74 (F161): the sum of all frame times */
#define FRAME_STEP_DT  0x08  /* i32 16.16 s: the step's unscaled time; the sim step copies it to +0 per car */
#define FRAME_STEP     0x0c  /* i32: number of the simulation step being run (0, 1, ...) */
#define FRAME_SIZE     0x10

/* ---- the race block 0x4f8d44..0x4f9854 ------------------------------------------------------- */
#define RACE_PHASE          0x000  /* i32: non-zero while the countdown holds the cars (chosen) */
#define RACE_RACERS         0x004  /* i32: number of racers, 8 (chosen) */
#define RACE_GO_TIME        0x008  /* u32 ms: the timeGetTime reading at which the countdown says "GO!" (chosen) */
#define RACE_RECORDS        0x040  /* racer records, 0xbc each (000) */
#define RACE_RECORD_SIZE    0xbc
#define POD_CATCHUP_RECORDS 0x4f97c8u  /* 16 bytes (four words) per racer (000); driver +0x90 points here */
#define CATCHUP_RECORD_SIZE 0x10
#define POD_CATCHUP_BASE    0x4f9848u  /* i32: 0, 3000 or 6000 by difficulty (F127) */
#define POD_CATCHUP_TARGET  0x4f984cu  /* the target function FUN_00422918 (A07: a pointer, chosen) */
#define POD_DIFFICULTY      0x633334u  /* documented (F127); outside the blocks the stand-in defines */

/* The car step's force array (6 x vec3, chosen: pinned so replays write the same bytes). */
#define POD_STEP_FORCES     0x4f3320u
/* The chassis point's move the step returns (F036): before, after (2 x vec3). */
#define POD_CHASSIS_MOVE    0x4f3368u
/* The damage records for the race display (000: 0xb8 per racer; not written by the stand-in). */
#define POD_DAMAGE_RECORDS  0x5a8e34u
#define DAMAGE_RECORD_SIZE  0xb8
/* The props (000, 002; port/CHOICES.md "Props"): [ ] count, [ ] the list of 0xd0 records, one hit flag per prop
 * at 0x6212a0 (A18); up to POD_PROPS_END the props' own words (the table of choices, "Props"). */
#define POD_PROP_COUNT      0x621298u
#define POD_PROP_LIST       0x62129cu
#define POD_PROPS_END       0x621400u
#define PROP_SIZE           0xd0
#define PROP_POINT_COUNT    0x30   /* i32 */
#define PROP_POINTS         0xb8   /* u32: address of the contact points, 0x40 each (F110) */
#define PROP_POINT_SIZE     0x40
#define MAX_PROPS           64
#define MAX_PROP_POINTS     64
/* [ ] = the race paths' first link, 0 without paths (000, 002). */
#define POD_PATHS           0x543254u
/* The paths' link table (chosen): +0 count, +4 the links' addresses in the track's order. */
#define POD_PATH_LINKS      0x543258u
#define PATH_LINKS_MAX      32
/* The beacons in the race block (chosen): +0x620 count, +0x624 records of 0x18 (point, normal). */
#define RACE_BEACON_COUNT   0x620
#define RACE_BEACONS        0x624
#define BEACON_SIZE         0x18
#define REC_NEXT_BEACON     0x08
#define REC_BEACONS_PASSED  0x0c
/* Race paths (002; fields chosen): node 0x24, link 0x1c. */
#define NODE_SIZE        0x24
#define NODE_POSITION    0x00
#define NODE_LINK_COUNT  0x0c
#define NODE_LINKS       0x14
#define NODE_VALUE       0x1c
#define LINK_SIZE        0x1c
#define LINK_END         0x08
#define LINK_START       0x0c
#define LINK_POINTS      0x10
#define LINK_VALUES      0x14
#define LINK_COUNT       0x18
#define POD_OBJECTS         0x61a6d0u  /* the racers' drawn objects, 0x80 each (003) */
#define OBJECT_SIZE         0x80
#define OBJECT_HULL         0x44       /* address of the hull (A01) */
#define OBJECT_MATRIX       0x48
#define OBJECT_POSITION     0x6c

/* ---- point record, 0xd8, five per car (port/CHOICES.md "Point record fields") ----------------- */
#define PT_POSITION   0x00  /* vec3 world */
#define PT_VELOCITY   0x0c  /* vec3 */
#define PT_SURFACE    0x18  /* u32: address 0x62bc0c + 12 n */
#define PT_SECTOR     0x1c  /* u32: address of the sector record */
#define PT_LAST_SECTOR 0x20 /* u32: last step's sector */
#define PT_NORMAL     0x24  /* vec3 contact normal */
#define PT_FACE_MESH  0x30  /* u32: address of the touched face's mesh */
#define PT_FACE       0x34  /* i32: the touched face's number */
#define PT_SLIDING    0x38  /* u8 */
#define PT_SKIDDING   0x39  /* u8 */
#define PT_TOUCHING   0x3a  /* u8 */
#define PT_FACE_QUAD  0x3b  /* u8: 1 quad, 0 triangle */
#define PT_LIFT       0x3c  /* i32, 0 in every car */
#define PT_ROLL       0x5c  /* i32 wheel roll angle */
#define PT_AXIS_ROLL  0x60  /* vec3 rolling direction */
#define PT_AXIS_AXLE  0x6c  /* vec3 axle */
#define PT_AXIS_UP    0x78  /* vec3 up */
#define PT_IMPULSE    0x84  /* vec3 */
#define PT_ROLLING_RESISTANCE 0x90
#define PT_WALL_DEPTH 0xc0
#define PT_WALL_DIR   0xc4  /* vec3 */
#define PT_BOUNCE     0xd0
#define PT_TOUCH_COUNT 0xd4 /* i32: 1..16 down, -1..-16 off */

/* ---- race car, 0x558 (port/CHOICES.md "Race car fields"; physics/car_params.h: the chosen parameters) */
#define CAR_POINT(i)        ((uint32_t)(i) * POINT_SIZE)  /* wheels 0..3, chassis 4 */
#define CAR_CHASSIS         0x360
#define CAR_WHEEL1_SECTOR   0x438
#define CAR_ENGINE_SPEED    0x440
#define CAR_WHEEL_ENGINE_SPEED 0x444
#define CAR_FLAGS           0x448  /* u8: bit 2 (0x04) automatic gearbox (F021) */
#define CAR_GEAR_REQUEST    0x449  /* u8: 0x20 up, 0x40 down */
#define CAR_GEAR_TIMER      0x470
#define CAR_SHIFT_POINTS    0x474  /* 4 x i32 */
#define CAR_BODY_CENTRE     0x498
#define CAR_FORWARD         0x4a4
#define CAR_LEFT            0x4b0
#define CAR_UP              0x4bc
#define CAR_VELOCITY        0x4c8
#define CAR_CARRIED_FORCE   0x4d4
#define CAR_CARRIED_TORQUE  0x4e0
#define CAR_CONTROLLER_WORD 0x4ec
#define CAR_UPSIDE_DOWN     0x4f0
#define CAR_SOUND_TABLE     0x4f4
#define CAR_SKID_SOUND      0x4f8
#define CAR_SOUND_STATE     0x4f9
#define CAR_SPIN            0x4fc
#define CAR_INERTIA         0x508
#define CAR_MASS            0x520
#define CAR_BRAKE_HOLD      0x52c
#define CAR_AIR_DRAG        0x530
#define CAR_DOWNFORCE       0x534
#define CAR_DRIVE_LAYOUT    0x54c  /* 1 all wheels, 2 front, else rear */
#define CAR_AUTOMATIC       0x04   /* bit in CAR_FLAGS */

/* ---- driver, 0xb0 (* chosen: port/CHOICES.md "Racers, drivers and controllers") -------------- */
#define DRV_RACER       0x00  /* i32 racer number * */
#define DRV_OBJECT      0x04  /* drawn object (racers 0..6; 0 for racer 7) */
#define DRV_CAR_STEP    0x08  /* 003's car_step (0: not used, C05) */
#define DRV_CONTROLLER  0x0c  /* controller, Watcom: eax = driver, edx = car * */
#define DRV_CAR         0x10  /* address of the race car * */
#define DRV_TRACK_LINK  0x2c
#define DRV_TRACK_POINT 0x30
#define DRV_INPUT       0x34  /* input bits, below */
#define DRV_FLAGS       0x38  /* bit 0 human, bit 1 computer car, bit 3 FUN_004b8b48's driver (F151) */
#define DRV_STEER       0x40  /* i32 16.16 in -1..1, positive = left * */
#define DRV_THROTTLE    0x44  /* i32 16.16 in 0..1 * */
#define DRV_BRAKE       0x48  /* i32 16.16 in 0..1 * */
#define DRV_PUT_BACK    0x58  /* i32: 1 after a put-back in this step, until the race's trackers see it (chosen) */
#define DRV_LINE_POINT  0x5c  /* address of the computer driver's line point (lane target, chosen) */
#define DRV_STUCK       0x7c
#define DRV_CATCHUP     0x90  /* address of the racer's catch-up record (A37: pointer, chosen) */

#define DRV_FLAG_HUMAN    0x01
#define DRV_FLAG_COMPUTER 0x02
#define DRV_FLAG_BIT3     0x08  /* neither human nor computer car: the driver FUN_004b8b48 sets up (F151) */

/* Input bits at DRV_INPUT (chosen; the controllers write them every step). */
#define IN_THROTTLE  0x0001
#define IN_LEFT      0x0002
#define IN_RIGHT     0x0004
#define IN_IGNORED   0x0008  /* never set by the stand-in's controllers (A04) */
#define IN_BRAKE     0x0010  /* the bit the countdown forces (F027) and the settling uses (F142) */
#define IN_GEAR_UP   0x0020  /* as car +0x449's request bits */
#define IN_GEAR_DOWN 0x0040

/* ---- track records (port/CHOICES.md "Track") ----------------------------------------------- */
#define SECTOR_SIZE       0x3c
#define SECTOR_MESH       0x00  /* u32 address of the mesh */
#define SECTOR_BOUNDS_MIN 0x10  /* vec3, the low corner (A23: chosen) */
#define SECTOR_BOUNDS_MAX 0x1c  /* vec3, the high corner */
#define SECTOR_NEIGHBOURS 0x28  /* i32 count, -1 out of play */
#define SECTOR_NEIGHBOUR_LIST 0x2c /* u32 address of u32 sector addresses */
#define SECTOR_LIST2      0x30  /* 0 */
#define SECTOR_ONE        0x34  /* 1 (F132) */

#define MESH_SIZE         0x1c  /* chosen */
#define MESH_VERTEX_COUNT 0x00  /* u16 */
#define MESH_TRI_COUNT    0x02  /* i16 */
#define MESH_QUAD_COUNT   0x04  /* i16 */
#define MESH_VERTICES     0x0c  /* u32 address of vec3 vertices (12 bytes each, chosen) */
#define MESH_VERTEX_NORMALS 0x10 /* 0 */
#define MESH_TRIS         0x14  /* u32 address of 0x20 triangles */
#define MESH_QUADS        0x18  /* u32 address of 0x3c quads */

#define QUAD_SIZE     0x3c
#define QUAD_NORMAL   0x00
#define QUAD_NORMAL_ABC 0x0c
#define QUAD_NORMAL_CDA 0x18
#define QUAD_CORNERS  0x2c  /* 4 x u16 vertex numbers */
#define QUAD_RENDER   0x34
#define QUAD_FLAGS1   0x35
#define QUAD_FLAGS    0x36  /* FACE_GROUND, FACE_WALL */
#define QUAD_SURFACE  0x37

#define TRI_SIZE      0x20
#define TRI_NORMAL    0x00
#define TRI_CORNERS   0x14  /* 3 x u16 */
#define TRI_RENDER    0x1a
#define TRI_FLAGS1    0x1b
#define TRI_FLAGS     0x1c
#define TRI_SURFACE   0x1d

#define FACE_GROUND 0x08  /* bit 3 (F078) */
#define FACE_WALL   0x20  /* bit 5 */

#define SURF_GRIP 0x00

/* ---- functions at POD's addresses (Watcom convention; call them with pod_call.h) ------------- */
/* the arithmetic layer (arith.S, port/CHOICES.md "Arithmetic layer and tables") */
#define FN_DOT16            0x4d41a0u  /* eax=a, edx=b -> eax */
#define FN_CROSS16          0x4d41dfu  /* eax=a, edx=b, ebx=out */
#define FN_SCALE16_IN_PLACE 0x4d4606u  /* eax=v (in/out), edx=s */
#define FN_SCALE16          0x4d465du  /* eax=v, edx=s, ebx=out */
#define FN_LENGTH16         0x4d43adu  /* eax=v -> eax */
#define FN_COS16            0x4c5e64u  /* eax=angle -> eax */
#define FN_SIN16            0x4c5e6cu  /* eax=angle -> eax */
#define FN_EXP16            0x4c5ed8u  /* eax=x -> eax */
/* the set-up needs and the infrastructure (src/, sysneeds.S) */
#define FN_SOUND            0x4b8d64u  /* eax=car, edx=slot; makes a system call */
#define FN_RAND             0x4c7f37u  /* -> eax in 0..0x7fff */
#define FN_MEMMOVE          0x4c8e70u  /* eax=dst, edx=src, ebx=n -> eax=dst; reloads ES */
#define FN_SMOKE_EMIT       0x45d44cu  /* eax=position (vec3*), edx=amount (16.16) */
#define FN_SIM_STEP         0x49a89cu  /* the simulation step */
#define FN_ZONES            0x456dd4u  /* race::zones: a named seam (G20) */
#define FN_RACE_STEP        0x49e63cu  /* race::race_step: the simulation steps of one pass (F154) */
#define FN_FRAME_CLOCK      0x4ae894u  /* race::frame_clock: the next frame time (F156) */
#define FN_COUNTDOWN        0x47b98cu  /* race::countdown (F130) */
#define FN_RACE_PASS        0x49d5e8u  /* race::pass: one pass of the race loop's rows 3, 4, 8, 10 (chosen) */
#define FN_TIME_GET_TIME    0x7f0010u  /* the scripted millisecond clock (stdcall) -> eax */
#define FN_HUMAN_CONTROLLER 0x422000u  /* eax=driver, edx=car */
#define FN_COMPUTER_CONTROLLER 0x4221d8u
#define FN_HOOK_STEP        0x74c240u  /* step-log hooks; preserve every register */
#define FN_HOOK_CTRL        0x74c250u  /* eax=racer: call right after the controller returns */
#define FN_HOOK_PHYS        0x74c260u  /* eax=racer */
#define FN_HOOK_FRAME       0x74c270u  /* the FRAME record, at the end of a pass */
#define FN_TLS_GETTER       0x7f0000u  /* -> eax = this thread's C library block */
/* the car physics (src/physics/): in the documented order of the car step */
#define FN_CAR_STEP         0x41b66cu  /* eax=car, edx=driver -> eax */
#define FN_RACER_STEP       0x49a800u  /* eax=car, edx=driver: car step, upside-down, pose (chosen) */
#define FN_CATCH_UP         0x422be8u
#define FN_AUTOMATIC        0x4191c4u
#define FN_GEARS            0x418f0cu
#define FN_WHEEL_AXES       0x41b3d4u
#define FN_TURN             0x424704u
#define FN_ENGINE           0x418010u
#define FN_TORQUE           0x4185acu
#define FN_BRAKES           0x4189c4u
#define FN_AIR              0x417c2cu
#define FN_GRIP             0x417cecu
#define FN_WHEEL_DRIVE      0x417f48u
#define FN_SPRINGS          0x4194c8u
#define FN_TYRES            0x41af80u
#define FN_INTEGRATE        0x419ad0u
#define FN_SUBSTEPS         0x419564u
#define FN_PLACE_POINTS     0x419680u
/* The grid's start record (F141: 0x24 bytes, the position, then the heading; +0x18..+0x23 not given,
 * G25: the stand-in leaves them 0). */
#define GRID_RECORD_SIZE 0x24
#define GRID_POSITION    0x00
#define GRID_HEADING     0x0c
#define FN_SURFACE_DEFAULTS 0x4985e8u  /* the 16 surfaces' defaults (F136) */
#define FN_QUAD_HALVES      0x4247f8u  /* eax=quad, edx=mesh: the halves' normals (F133) */
#define FN_GRID_SLOT        0x4236f0u  /* eax=car, edx=start record (F141) */
#define FN_SETTLE           0x49b9d4u  /* the settling (F142) */
#define FN_SETTLE_SEAM      0x41e0d0u  /* called by the settling (C03; purpose not given, G25) */
#define FN_TRACK            0x417988u
#define FN_QUAD_TEST        0x424ba4u
#define FN_TRI_TEST         0x424ee4u
#define FN_WHEEL_SPIN       0x418bd4u
#define FN_SKID_SMOKE       0x41a714u

/* The race car's chosen defaults the race sets before the physics' set-up (see "Race" in CHOICES). */

#endif /* STANDIN_H */
