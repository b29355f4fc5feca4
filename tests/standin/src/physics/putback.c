/* Putting a car back on the track (port/CHOICES.md "Putting a car back"): putback::put_back (0x415730), car_reset
 * (0x41c814), putback::clear_pose (0x4231b4), putback::place (0x423538), the sector searches
 * world::sector_near (0x45ca78) and world::sector_any (0x45ccd8), and the race paths' heading
 * paths::heading (0x4abd38) and next point paths::next_point (0x4abae8).
 * Every rule the documents leave open: port/CHOICES.md, "Putting a car back" ("put-back", "car_reset",
 * "sector_near / sector_any", "race paths"). */
#include "car_params.h"

/* lo <= p <= hi on x, y, z, each bound read when it is compared, stopping at the first false. */
static inline int holds(uint32_t sector, const vec3 *p) {
  return I32(sector, SECTOR_BOUNDS_MIN) <= p->x && p->x <= I32(sector, SECTOR_BOUNDS_MAX) &&
         I32(sector, SECTOR_BOUNDS_MIN + 4) <= p->y && p->y <= I32(sector, SECTOR_BOUNDS_MAX + 4) &&
         I32(sector, SECTOR_BOUNDS_MIN + 8) <= p->z && p->z <= I32(sector, SECTOR_BOUNDS_MAX + 8);
}

/* 0x45ccd8 world::sector_any(eax = position) -> eax: the first sector in play whose bounds hold the
 * point, else the first sector. */
int32_t world_sector_any(uint32_t position, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t table = U32(POD_SECTOR_TABLE, 0);
  int32_t count = I32(POD_SECTOR_COUNT, 0);
  for (int32_t j = 0; j < count; j++) {
    uint32_t s = table + (uint32_t)j * SECTOR_SIZE;
    if (I32(s, SECTOR_NEIGHBOURS) >= 0 && holds(s, PTR(position))) return (int32_t)s;
  }
  return (int32_t)table;
}

/* 0x45ca78 world::sector_near(eax = position, edx = hint) -> eax: the hint when it holds the point,
 * else the first of its neighbours that does, else every sector's search. */
int32_t world_sector_near(uint32_t position, uint32_t hint, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  const vec3 *p = PTR(position);
  if (hint) {
    if (holds(hint, p)) return (int32_t)hint;
    int32_t n = I32(hint, SECTOR_NEIGHBOURS);
    for (int32_t j = 0; j < n; j++) {
      uint32_t s = U32(U32(hint, SECTOR_NEIGHBOUR_LIST), 4u * (uint32_t)j);
      if (holds(s, p)) return (int32_t)s;
    }
  }
  return POD_CALL1(FN_SECTOR_ANY, position);
}

/* 0x4abae8 paths::next_point(eax = link) -> eax: the point after a link's last one (F084): the end
 * node's position when several links leave it, the first point of its only link, or 0. */
int32_t paths_next_point(uint32_t link, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t end = U32(link, LINK_END);
  if (!end) return 0;
  int32_t m = I32(end, NODE_LINK_COUNT);
  if (m > 1) return (int32_t)(end + NODE_POSITION);
  if (m == 1) {
    uint32_t only = U32(U32(end, NODE_LINKS), 0);
    if (I32(only, LINK_COUNT) > 0) return (int32_t)U32(only, LINK_POINTS);
  }
  return 0;
}

/* 0x4abd38 paths::heading(eax = driver, edx = out) -> eax: the next path point minus the tracker's
 * (F083); 1 when written, 0 when the tracker has no link or nothing follows. */
int32_t paths_heading(uint32_t driver, uint32_t out, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t link = U32(driver, DRV_TRACK_LINK);
  if (!link) return 0;
  int32_t k = I32(driver, DRV_TRACK_POINT);
  uint32_t cur = U32(link, LINK_POINTS) + 12u * (uint32_t)k;
  uint32_t next;
  if (k + 1 < I32(link, LINK_COUNT)) next = cur + 12;
  else next = (uint32_t)POD_CALL1(FN_PATH_NEXT, link);
  if (!next) return 0;
  vsub(PTR(out), PTR(next), PTR(cur));
  return 1;
}

/* 0x41c814 car_reset(eax = car): the car at rest (F048). */
int32_t car_reset(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  const vec3 zero = {0, 0, 0};
  *VEC(car, CAR_VELOCITY) = zero;
  *VEC(car, CAR_SPIN) = zero;
  *VEC(car, CAR_CARRIED_FORCE) = zero;
  *VEC(car, CAR_CARRIED_TORQUE) = zero;
  I32(car, CAR_ENGINE_SPEED) = 0;
  I32(car, CAR_WHEEL_ENGINE_SPEED) = 0;
  I8(car, CAR_GEAR) = 0;
  U8(car, CAR_GEAR_REQUEST) = 0;
  I32(car, CAR_GEAR_TIMER) = 0;
  I32(car, CAR_CONTROLLER_WORD) = 0;
  I32(car, CAR_BRAKE_HOLD) = 0;
  I32(car, CAR_STEER) = 0;
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    U8(p, PT_SLIDING) = 0;
    U8(p, PT_SKIDDING) = 0;
    *VEC(p, PT_VELOCITY) = zero;
    *VEC(p, PT_IMPULSE) = zero;
  }
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    I32(p, PT_ROLL) = 0;
    I32(p, PT_SPIN) = 0;
    I32(p, PT_HEIGHT) = I32(p, PT_REST);
    I32(p, PT_HEIGHT_VEL) = 0;
  }
  int32_t max = 1000 << 16;  /* F048 */
  I32(car, CAR_ENGINE_MAX) = max;
  I32(car, CAR_SHIFT_POINTS + 0) = mul16(max, 0xeb85);  /* 0.92 */
  I32(car, CAR_SHIFT_POINTS + 4) = mul16(max, 0x75c3);  /* 0.46 */
  I32(car, CAR_SHIFT_POINTS + 8) = mul16(max, 0x199a);  /* 0.10 */
  I32(car, CAR_SHIFT_POINTS + 12) = mul16(max, 0x3333); /* 0.20 */
  return 0;
}

/* 0x4231b4 putback::clear_pose(eax = car): the body's centre and axes cleared, then car_reset. */
int32_t putback_clear_pose(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  const vec3 zero = {0, 0, 0};
  *VEC(car, CAR_BODY_CENTRE) = zero;
  *VEC(car, CAR_FORWARD) = zero;
  *VEC(car, CAR_LEFT) = zero;
  *VEC(car, CAR_UP) = zero;
  POD_CALL1(FN_CAR_RESET, car);
  return 0;
}

/* 0x423538 putback::place(eax = car, edx = point, ebx = heading): the body 1 above the point, forward
 * the heading made level and of length 1, up the world's z, left = up x forward; the points placed
 * and each one's sector found near its last (F085). */
int32_t putback_place(uint32_t car, uint32_t point, uint32_t heading, uint32_t ecx) {
  (void)ecx;
  const vec3 *at = PTR(point), *hd = PTR(heading);
  *VEC(car, CAR_BODY_CENTRE) = (vec3){at->x, at->y, at->z + FX_ONE};
  vec3 h = {hd->x, hd->y, 0};
  int32_t len = length16(&h);
  *VEC(car, CAR_FORWARD) = (vec3){qdiv(h.x, len), qdiv(h.y, len), 0};
  *VEC(car, CAR_UP) = (vec3){0, 0, FX_ONE};
  cross16(VEC(car, CAR_UP), VEC(car, CAR_FORWARD), VEC(car, CAR_LEFT));
  POD_CALL1(FN_PLACE_POINTS, car);
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    uint32_t s = (uint32_t)POD_CALL2(FN_SECTOR_NEAR, ADDR(VEC(p, PT_POSITION)), U32(p, PT_SECTOR));
    U32(p, PT_SECTOR) = s;
    U32(p, PT_LAST_SECTOR) = s;
  }
  return 0;
}

/* 0x415730 putback::put_back(eax = car, edx = driver): the car back on the face wheel 0 last touched
 * (F082), heading along the race path at the driver's tracker or as it faced (F083), at rest (F086).
 * Wheel 0 has always touched a face by then: every car starts on the road. */
int32_t putback_put_back(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t w0 = car + CAR_POINT(0);
  uint32_t mesh = U32(w0, PT_FACE_MESH);
  vec3 point, heading;
  if (U8(w0, PT_FACE_QUAD)) {
    uint32_t q = U32(mesh, MESH_QUADS) + (uint32_t)I32(w0, PT_FACE) * QUAD_SIZE;
    vec3 sum = {0, 0, 0};
    for (int k = 0; k < 4; k++)
      vadd(&sum, &sum, PTR(U32(mesh, MESH_VERTICES) + 12u * U16(q, QUAD_CORNERS + 2 * k)));
    point = (vec3){sum.x >> 2, sum.y >> 2, sum.z >> 2};
  } else {
    uint32_t t = U32(mesh, MESH_TRIS) + (uint32_t)I32(w0, PT_FACE) * TRI_SIZE;
    vec3 sum = {0, 0, 0};
    for (int k = 0; k < 3; k++)
      vadd(&sum, &sum, PTR(U32(mesh, MESH_VERTICES) + 12u * U16(t, TRI_CORNERS + 2 * k)));
    POD_CALL2(FN_SCALE16_IN_PLACE, ADDR(&sum), 0x5555);
    point = sum;
  }
  if (!(U32(POD_PATHS, 0) != 0 && POD_CALL2(FN_PATH_HEADING, driver, ADDR(&heading)) != 0))
    heading = *VEC(car, CAR_FORWARD);
  U32(car, CAR_UPSIDE_DOWN) = 0;
  POD_CALL1(FN_CAR_RESET, car);
  POD_CALL1(FN_CLEAR_POSE, car);
  POD_CALL3(FN_PLACE, car, ADDR(&point), ADDR(&heading));
  /* the mark for the caller (000: the tracker found again and the lane target are the caller's):
   * the race's trackers read it after the collision pass (race::sim_step) */
  I32(driver, DRV_PUT_BACK) = 1;
  return 0;
}
