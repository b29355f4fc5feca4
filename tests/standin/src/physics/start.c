/* The start: what the race's set-up does before the first simulation step that the documents give
 * (F133, F136, F141, F142): the surface defaults, a quad's half
 * normals, a car put on its grid slot, and the settling. Every rule the documents leave open is a
 * choice of the stand-in's, listed in tests/standin/README.md ("The start"). */
#include "../internal.h"
#include "car_params.h"

/* ---- 0x4985e8 setup::surface_defaults(): the 16 surfaces' defaults (F136) ------------------------ */

/* A08 read as successive surfaces' grips: 1.0, 50000, 40000, 25000 (raw 16.16), the rest 1.0 (the
 * "..." continued with 1.0); word +4 the surface's number, word +8 zero. */
int32_t surface_defaults(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  static const int32_t grips[4] = {FX_ONE, 50000, 40000, 25000};
  for (int n = 0; n < NUM_SURFACES; ++n) {
    I32(SURFACE(n), 0) = n < 4 ? grips[n] : FX_ONE;
    I32(SURFACE(n), 4) = n;
    I32(SURFACE(n), 8) = 0;
  }
  return 0;
}

/* ---- 0x4247f8 setup::quad_halves(eax = quad, edx = mesh): the halves' normals (F133) ------------- */

/* The unit normal of (q - p) x (r - p), written to out; a zero cross product leaves out at 0, 0, 0
 * (no divide by zero). */
static void half_normal(const vec3 *p, const vec3 *q, const vec3 *r, vec3 *out) {
  vec3 u, v, n;
  vsub(&u, q, p);
  vsub(&v, r, p);
  cross16(&u, &v, &n);
  int32_t len = length16(&n);
  if (len == 0) {
    *out = (vec3){0, 0, 0};
    return;
  }
  *out = (vec3){div16(n.x, len), div16(n.y, len), div16(n.z, len)};
}

/* Half a b c's normal at +0x0c, half c d a's at +0x18, from the mesh's vertices. */
int32_t quad_halves(uint32_t quad, uint32_t mesh, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t verts = U32(mesh, MESH_VERTICES);
  const vec3 *a = PTR(verts + 12u * U16(quad, QUAD_CORNERS + 0)), *b = PTR(verts + 12u * U16(quad, QUAD_CORNERS + 2));
  const vec3 *c = PTR(verts + 12u * U16(quad, QUAD_CORNERS + 4)), *d = PTR(verts + 12u * U16(quad, QUAD_CORNERS + 6));
  half_normal(a, b, c, VEC(quad, QUAD_NORMAL_ABC));
  half_normal(c, d, a, VEC(quad, QUAD_NORMAL_CDA));
  return 0;
}

/* ---- 0x4236f0 setup::grid_slot(eax = car, edx = start record): the car on its slot (F141) -------- */

/* The start record's position (+0x00) and heading (+0x0c) handed to the place (0x423538, F085),
 * which levels the heading (its x and y) and finds each point's sector; nothing cleared first (the
 * car record is fresh from its set-up). */
int32_t grid_slot(uint32_t car, uint32_t start, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  POD_CALL3(FN_PLACE, car, start + GRID_POSITION, start + GRID_HEADING);
  return 0;
}

/* ---- 0x49b9d4 setup::settle(): two seconds of the cars' physics before the countdown (F142) ------ */

/* Called once per step of the settling, after the racers (C03: FUN_0041e0d0; its purpose is not
 * given, G25): a named seam that changes nothing, as the zones (race_loop.c). */
__asm__(".pushsection .pod.fn.0041e0d0,\"ax\",@progbits\n"
        ".globl pod_0041e0d0\n"
        ".type pod_0041e0d0,@function\n"
        "pod_0041e0d0:\n"
        "        ret\n"
        ".size pod_0041e0d0, .-pod_0041e0d0\n"
        ".popsection\n");

#define SETTLE_UNITS 3         /* the step: 3 step units (F142) */
#define SETTLE_TIME  0x20000   /* until 2 s (F142) */
#define SETTLE_INPUT IN_BRAKE  /* 0x10 (F142, A05) */

/* Steps of 3 x [0x60bdfc] while the time settled (a local: no memory word) is below 2 s, tested
 * before each step; each step: frame +8 and, per car, frame +0 the step's time; each racer in
 * order, humans first: its input 0x10, its car step (0x41b66c, which runs the catch-up and calls
 * the controller), its pose and the wheels' roll (0x4155b8), its stuck timer cleared; then 0x41e0d0.
 * No upside-down test, no zones, no collision pass, no trackers; frame +4 and +0xc untouched. */
int32_t settle(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  int32_t dt = SETTLE_UNITS * I32(POD_STEP_UNIT, 0);
  int32_t racers = I32(POD_HUMAN_COUNT, 0) + I32(POD_COMPUTER_COUNT, 0);
  for (int32_t settled = 0; settled < SETTLE_TIME; settled += dt) {
    I32(POD_FRAME, FRAME_STEP_DT) = dt;
    for (int32_t r = 0; r < racers; ++r) {
      uint32_t driver = DRIVER(r), car = CAR(r);
      I32(POD_FRAME, FRAME_DT) = dt;
      U32(driver, DRV_INPUT) = SETTLE_INPUT;
      POD_CALL2(FN_CAR_STEP, car, driver);
      POD_CALL2(FN_POSE, car, driver);
      I32(driver, DRV_STUCK) = 0;
    }
    POD_CALL0(FN_SETTLE_SEAM);
  }
  return 0;
}
