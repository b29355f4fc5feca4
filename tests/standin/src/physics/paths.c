/* The race's paths (F143, F172; "Catch-up"): a
 * driver's tracker placed on the nearest path point (paths::place, 0x4aa8a0), moved along its path
 * each step (paths::track, 0x4b0ec0) with the node's position past a link's end (paths::track_node,
 * 0x4b0b98), a computer driver's lane target after a put-back (paths::lane_target, 0x455ed0), and the
 * catch-up's target racer by number (catch_up::target, 0x422918, called through [0x4f984c], A07).
 * Every rule the documents leave open (the link table, the move along, the lost tracker, the line
 * point, the target's range): port/CHOICES.md, "The race's paths". */
#include "car_params.h"

STANDIN_INLINE int32_t wsub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
/* |v| as the original's neg: |0x80000000| stays 0x80000000 */
STANDIN_INLINE int32_t wabs(int32_t v) { return v < 0 ? (int32_t)(0u - (uint32_t)v) : v; }

#define LOST (8 << 16)  /* a tracker farther than the road's half width from its car is lost (chosen) */

/* F143's distance: the larger of |dx| and |dy|, or |4 dz| when larger (32-bit, wrapping). */
static int32_t distance(uint32_t point, uint32_t car) {
  const vec3 *q = PTR(point), *p = VEC(car, CAR_BODY_CENTRE);
  int32_t dx = wsub(q->x, p->x), dy = wsub(q->y, p->y), dz = wsub(q->z, p->z);
  int32_t d = wabs(dx);
  if (wabs(dy) > d) d = wabs(dy);
  int32_t z4 = wabs((int32_t)((uint32_t)dz << 2));
  if (z4 > d) d = z4;
  return d;
}

/* 0x4aa8a0 paths::place(eax = driver, edx = car): the nearest point of the link table's links by
 * F143's distance to the body's centre, the first of equals (links, then points, in order). */
STANDIN_CODE int32_t paths_place(uint32_t driver, uint32_t car, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t n = I32(POD_PATH_LINKS, 0);
  uint32_t best_link = 0;
  int32_t best_point = 0, best = 0;
  for (int32_t l = 0; l < n; ++l) {
    uint32_t link = U32(POD_PATH_LINKS, 4u + 4u * (uint32_t)l);
    int32_t count = I32(link, LINK_COUNT);
    uint32_t points = U32(link, LINK_POINTS);
    for (int32_t k = 0; k < count; ++k) {
      int32_t d = distance(points + 12u * (uint32_t)k, car);
      if (!best_link || d < best) best = d, best_link = link, best_point = k;
    }
  }
  if (best_link) {
    U32(driver, DRV_TRACK_LINK) = best_link;
    I32(driver, DRV_TRACK_POINT) = best_point;
  }
  return 0;
}

/* 0x4b0b98 paths::track_node(eax = link) -> eax: past a link's end the race tracker takes the end
 * node's position (F172), the node's own address; 0 when the link ends nowhere. */
STANDIN_CODE int32_t paths_track_node(uint32_t link, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t end = U32(link, LINK_END);
  return end ? (int32_t)(end + NODE_POSITION) : 0;
}

/* 0x4b0ec0 paths::track(eax = driver, edx = car): the tracker moved along its path, one point at most
 * a step, when the next point (past the link's end: the node's position) is nearer to the car than
 * its own; past the end it goes on along the node's first link out. A tracker that does not move and
 * is farther than LOST from its car is found again (paths::place): a car that left the road. In the
 * air (no wheel down) the tracker stays. */
STANDIN_CODE int32_t paths_track(uint32_t driver, uint32_t car, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t link = U32(driver, DRV_TRACK_LINK);
  if (!link) return 0;
  int down = 0;
  for (int w = 0; w < NUM_WHEELS && !down; ++w) down = U8(car, CAR_POINT(w) + PT_TOUCHING) != 0;
  if (!down) return 0;
  int32_t k = I32(driver, DRV_TRACK_POINT), count = I32(link, LINK_COUNT);
  uint32_t cur = U32(link, LINK_POINTS) + 12u * (uint32_t)k;
  uint32_t next = k + 1 < count ? cur + 12 : (uint32_t)POD_CALL1(FN_PATH_TRACK_NODE, link);
  int32_t here = distance(cur, car);
  if (next && distance(next, car) < here) {
    if (k + 1 < count) {
      I32(driver, DRV_TRACK_POINT) = k + 1;
    } else {
      uint32_t end = U32(link, LINK_END);
      if (I32(end, NODE_LINK_COUNT) >= 1) {
        uint32_t first = U32(U32(end, NODE_LINKS), 0);
        if (I32(first, LINK_COUNT) >= 1) {
          U32(driver, DRV_TRACK_LINK) = first;
          I32(driver, DRV_TRACK_POINT) = 0;
        }
      }
    }
    return 0;
  }
  if (here > LOST) POD_CALL2(FN_PATH_PLACE, driver, car);
  return 0;
}

/* 0x455ed0 paths::lane_target(eax = driver): the computer driver's line point (driver +0x5c), the
 * point after its tracker's (past the link's end, the node's position), 0 without a tracker. */
STANDIN_CODE int32_t paths_lane_target(uint32_t driver, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t link = U32(driver, DRV_TRACK_LINK), point = 0;
  if (link) {
    int32_t k = I32(driver, DRV_TRACK_POINT);
    point = k + 1 < I32(link, LINK_COUNT) ? U32(link, LINK_POINTS) + 12u * (uint32_t)(k + 1)
                                          : (uint32_t)POD_CALL1(FN_PATH_TRACK_NODE, link);
  }
  U32(driver, DRV_LINE_POINT) = point;
  return 0;
}

/* 0x422918 catch_up::target(eax = racer number) -> eax: that racer's driver, or 0 when the number is
 * not a racer's (humans then computer cars, A35). */
STANDIN_CODE int32_t catch_up_target(uint32_t racer, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t n = (int32_t)racer;
  if (n < 0 || n >= I32(POD_HUMAN_COUNT, 0) + I32(POD_COMPUTER_COUNT, 0)) return 0;
  return (int32_t)DRIVER(n);
}
