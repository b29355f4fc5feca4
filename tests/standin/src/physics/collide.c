/* Track contact: collide::track (0x417988), collide::touch_face (0x4174f8),
 * collide::chassis_searches (0x417884), collide::over_quad (0x424ba4), collide::over_triangle
 * (0x424ee4); inside the pass the free wheels on the touching wheels' planes (F077), the walls of the
 * sectors found (collide::sector_walls 0x416be0, collide::push_faces 0x4168dc, collide::wall_depth
 * 0x4167ec, at the end of this file) and the fall test's put-back (F080). Formulas: port/CHOICES.md,
 * one section each, and "The car step and its functions". */
#include "car_params.h"

#define WHEEL_NORMAL_AWAY 0xf000 /* a wheel's normal "points away" from up below this dot (chosen) */

static inline const vec3 *vertex(uint32_t mesh, uint32_t corners, int k) {
  return (const vec3 *)PTR(U32(mesh, MESH_VERTICES) + 12u * U16(corners, 2 * k));
}

/* Is p on the inner side of the edge u -> w, seen along n: (w - u) x (p - u) . n >= 0. */
static int inside_edge(const vec3 *u, const vec3 *w, const vec3 *p, const vec3 *n) {
  vec3 e, d, c;
  vsub(&e, w, u);
  vsub(&d, p, u);
  cross16(&e, &d, &c);
  return dot16(&c, n) >= 0;
}

static int inside_triangle(const vec3 *a, const vec3 *b, const vec3 *c, const vec3 *p, const vec3 *n) {
  return inside_edge(a, b, p, n) && inside_edge(b, c, p, n) && inside_edge(c, a, p, n);
}

/* 0x424ba4 collide::over_quad(eax = point, edx = quad, ebx = mesh) -> eax: 1 over half a b c,
 * 2 over half c d a, 0 not over. The half by the side of the A-C diagonal (F071). */
int32_t collide_over_quad(uint32_t point, uint32_t quad, uint32_t mesh, uint32_t ecx) {
  (void)ecx;
  const vec3 *p = VEC(point, PT_POSITION);
  uint32_t corners = quad + QUAD_CORNERS;
  const vec3 *a = vertex(mesh, corners, 0), *b = vertex(mesh, corners, 1);
  const vec3 *c = vertex(mesh, corners, 2), *d = vertex(mesh, corners, 3);
  vec3 ac, ap, x;
  vsub(&ac, c, a);
  vsub(&ap, p, a);
  cross16(&ac, &ap, &x);
  if (dot16(&x, VEC(quad, QUAD_NORMAL)) < 0) {
    return inside_triangle(a, b, c, p, VEC(quad, QUAD_NORMAL_ABC)) ? 1 : 0;
  }
  return inside_triangle(c, d, a, p, VEC(quad, QUAD_NORMAL_CDA)) ? 2 : 0;
}

/* 0x424ee4 collide::over_triangle(eax = point, edx = triangle, ebx = mesh) -> eax: 1 over, 0 not. */
int32_t collide_over_triangle(uint32_t point, uint32_t tri, uint32_t mesh, uint32_t ecx) {
  (void)ecx;
  uint32_t corners = tri + TRI_CORNERS;
  return inside_triangle(vertex(mesh, corners, 0), vertex(mesh, corners, 1), vertex(mesh, corners, 2),
                         VEC(point, PT_POSITION), VEC(tri, TRI_NORMAL)) ? 1 : 0;
}

/* The normal of a face as the tests use it: kind 0 triangle, 1 quad half abc, 2 quad half cda. */
static const vec3 *face_normal(uint32_t face, uint32_t kind) {
  return kind == 0 ? VEC(face, TRI_NORMAL) : kind == 1 ? VEC(face, QUAD_NORMAL_ABC) : VEC(face, QUAD_NORMAL_CDA);
}

/* The point's height above the face's plane, along that normal, from the first corner (A). */
static int32_t face_height(uint32_t point, uint32_t face, uint32_t mesh, uint32_t kind) {
  const vec3 *a = vertex(mesh, face + (kind == 0 ? TRI_CORNERS : QUAD_CORNERS), 0);
  vec3 d;
  vsub(&d, VEC(point, PT_POSITION), a);
  return dot16(&d, face_normal(face, kind));
}

/* 0x4174f8 collide::touch_face(eax = point, edx = face, ebx = mesh, ecx = kind): the point touches
 * the face: surface, contact normal, the face's mesh, number and kind, touching. */
int32_t collide_touch_face(uint32_t point, uint32_t face, uint32_t mesh, uint32_t kind) {
  uint8_t surface;
  int32_t number;
  if (kind == 0) {
    surface = U8(face, TRI_SURFACE);
    number = (int32_t)(face - U32(mesh, MESH_TRIS)) / TRI_SIZE;
  } else {
    surface = U8(face, QUAD_SURFACE);
    number = (int32_t)(face - U32(mesh, MESH_QUADS)) / QUAD_SIZE;
  }
  U32(point, PT_SURFACE) = SURFACE(surface & 0x0f);
  *VEC(point, PT_NORMAL) = *face_normal(face, kind);
  U32(point, PT_FACE_MESH) = mesh;
  I32(point, PT_FACE) = number;
  U8(point, PT_FACE_QUAD) = kind != 0;
  U8(point, PT_TOUCHING) = 1;
  return 0;
}

/* 0x417884 collide::chassis_searches(eax = car) -> eax: 1 when the chassis point searches (F075). */
int32_t collide_chassis_searches(uint32_t car, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t yes = 0;
  int32_t n = I32(POD_CHASSIS_COUNTER, 0) + 1;
  if (n >= 17) n = 0, yes = 1;
  I32(POD_CHASSIS_COUNTER, 0) = n;
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (!U8(p, PT_TOUCHING)) {
      yes = 1;
    } else if (dot16(VEC(p, PT_NORMAL), VEC(car, CAR_UP)) < WHEEL_NORMAL_AWAY) {
      yes = 1;
    }
  }
  return yes;
}

/* The band (F072): the bottom of the point's sphere, e - radius above the face, between 2.29 below
 * and one radius above. */
static inline int in_band(int32_t e, int32_t radius) {
  int32_t d = e - radius;
  return d >= -CONTACT_BELOW && d <= radius;
}

static int within_bounds(uint32_t sector, const vec3 *p) {
  const vec3 *lo = VEC(sector, SECTOR_BOUNDS_MIN), *hi = VEC(sector, SECTOR_BOUNDS_MAX);
  return p->x >= lo->x && p->x <= hi->x && p->y >= lo->y && p->y <= hi->y && p->z >= lo->z && p->z <= hi->z;
}

/* The first ground face of the sector's mesh the point is over and within the band: quads first,
 * then triangles. Returns the face's kind + 1 (0: none); *face and *height set. */
static int search_sector(uint32_t point, uint32_t sector, uint32_t *face, int32_t *height) {
  uint32_t mesh = U32(sector, SECTOR_MESH);
  int32_t radius = I32(point, PT_RADIUS);
  int16_t nq = I16(mesh, MESH_QUAD_COUNT), nt = I16(mesh, MESH_TRI_COUNT);
  for (int16_t k = 0; k < nq; k++) {
    uint32_t q = U32(mesh, MESH_QUADS) + (uint32_t)k * QUAD_SIZE;
    if (!(U8(q, QUAD_FLAGS) & FACE_GROUND)) continue;
    int32_t half = POD_CALL3(FN_QUAD_TEST, point, q, mesh);
    if (!half) continue;
    int32_t e = face_height(point, q, mesh, (uint32_t)half);
    if (in_band(e, radius)) {
      *face = q, *height = e;
      return half + 1;
    }
  }
  for (int16_t k = 0; k < nt; k++) {
    uint32_t t = U32(mesh, MESH_TRIS) + (uint32_t)k * TRI_SIZE;
    if (!(U8(t, TRI_FLAGS) & FACE_GROUND)) continue;
    if (!POD_CALL3(FN_TRI_TEST, point, t, mesh)) continue;
    int32_t e = face_height(point, t, mesh, 0);
    if (in_band(e, radius)) {
      *face = t, *height = e;
      return 1;
    }
  }
  return 0;
}

/* A wheel on a face (found, or a touching wheel's plane, F077) at height e: a floor within 0.195 of
 * square to the car's up lifts it into the suspension (F073), else it does not touch. The wheel's
 * centre is set one radius above the face as far as its travel allows; what the travel cannot take
 * is its bottom-out (+0xa4), which suspension::travel pushes the body by. */
static void settle_wheel(uint32_t car, uint32_t p, int32_t height) {
  int32_t along = dot16(VEC(p, PT_NORMAL), VEC(car, CAR_UP));
  if (along <= FLOOR_UP_MIN) {
    U8(p, PT_TOUCHING) = 0;
    return;
  }
  int32_t h = I32(p, PT_HEIGHT);
  int32_t raw = h + qdiv(height - I32(p, PT_RADIUS), along);
  I32(p, PT_BOTTOM_OUT) = raw < 0 ? -raw : 0;
  int32_t lifted = clampi(raw, 0, I32(p, PT_HEIGHT_MAX));
  vec3 d;
  scale16(VEC(car, CAR_UP), h - lifted, &d);
  vadd(VEC(p, PT_POSITION), VEC(p, PT_POSITION), &d);
  /* dh/dt of a touching wheel: its point's speed along the contact normal (down = compressing) */
  I32(p, PT_HEIGHT_VEL) = dot16(VEC(p, PT_VELOCITY), VEC(p, PT_NORMAL));
  I32(p, PT_HEIGHT) = lifted;
}

/* F077: with two or three wheels down, a free wheel is tested where it would sit on a touching
 * wheel's plane (through that wheel's contact, a radius below its centre along its normal). */
static void free_wheels_on_planes(uint32_t car) {
  int down = 0;
  for (int i = 0; i < NUM_WHEELS; i++) down += U8(car, CAR_POINT(i) + PT_TOUCHING) != 0;
  if (down < 2 || down > 3) return;
  /* touching as it stands when each wheel is tried: a wheel set on a plane counts for the later ones */
  for (int i = 0; i < NUM_WHEELS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (U8(p, PT_TOUCHING)) continue;
    for (int j = 0; j < NUM_WHEELS; j++) {
      if (!U8(car, CAR_POINT(j) + PT_TOUCHING)) continue;
      uint32_t q = car + CAR_POINT(j);
      vec3 d;
      vsub(&d, VEC(p, PT_POSITION), VEC(q, PT_POSITION));
      int32_t e = dot16(&d, VEC(q, PT_NORMAL)) + I32(q, PT_RADIUS);
      if (!in_band(e, I32(p, PT_RADIUS))) continue;
      U32(p, PT_SURFACE) = U32(q, PT_SURFACE);
      U32(p, PT_SECTOR) = U32(q, PT_SECTOR);
      *VEC(p, PT_NORMAL) = *VEC(q, PT_NORMAL);
      U32(p, PT_FACE_MESH) = U32(q, PT_FACE_MESH);
      I32(p, PT_FACE) = I32(q, PT_FACE);
      U8(p, PT_FACE_QUAD) = U8(q, PT_FACE_QUAD);
      U8(p, PT_TOUCHING) = 1;
      settle_wheel(car, p, e);
      break;
    }
  }
}

/* 0x417988 collide::track(eax = car, edx = driver). */
int32_t collide_track(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t calls = I32(car, CAR_TRACK_CALLS) + 1;
  I32(car, CAR_TRACK_CALLS) = calls;
  int full = (calls & 3) == 0;  /* every fourth call: all sectors (F070) */
  int chassis = POD_CALL1(FN_CHASSIS_SEARCHES, car);
  uint32_t table = U32(POD_SECTOR_TABLE, 0);
  int32_t count = I32(POD_SECTOR_COUNT, 0);
  for (int i = 0; i < NUM_POINTS; i++) {
    I32(car + CAR_POINT(i), PT_WALL_DEPTH) = 0;
    if (i < NUM_WHEELS) I32(car + CAR_POINT(i), PT_BOTTOM_OUT) = 0;
  }

  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t p = car + CAR_POINT(i);
    if (i == CHASSIS && !chassis) continue;
    const vec3 *pos = VEC(p, PT_POSITION);
    uint32_t face = 0, sector = 0, fmesh = 0;
    int32_t height = 0;
    int kind = 0;  /* face kind + 1 */

    /* The face touched last step first (F069). */
    uint32_t mesh = U32(p, PT_FACE_MESH);
    if (U8(p, PT_TOUCHING) && mesh != 0) {
      uint32_t f, k;
      if (U8(p, PT_FACE_QUAD)) {
        f = U32(mesh, MESH_QUADS) + (uint32_t)I32(p, PT_FACE) * QUAD_SIZE;
        k = (uint32_t)POD_CALL3(FN_QUAD_TEST, p, f, mesh);
        if (k) {
          int32_t e = face_height(p, f, mesh, k);
          if (in_band(e, I32(p, PT_RADIUS))) face = f, height = e, kind = (int)k + 1;
        }
      } else {
        f = U32(mesh, MESH_TRIS) + (uint32_t)I32(p, PT_FACE) * TRI_SIZE;
        if (POD_CALL3(FN_TRI_TEST, p, f, mesh)) {
          int32_t e = face_height(p, f, mesh, 0);
          if (in_band(e, I32(p, PT_RADIUS))) face = f, height = e, kind = 1;
        }
      }
      if (kind) fmesh = mesh;
    }
    /* Else the search: its sector and the sector's neighbours, or every sector (F069, F070). */
    if (!kind) {
      uint32_t own = U32(p, PT_SECTOR);
      uint32_t first_holding = 0;
      int32_t n = full ? count : (own ? 1 + (I32(own, SECTOR_NEIGHBOURS) > 0 ? I32(own, SECTOR_NEIGHBOURS) : 0) : 0);
      for (int32_t j = 0; j < n && !kind; j++) {
        uint32_t s = full ? table + (uint32_t)j * SECTOR_SIZE
                          : j == 0 ? own : U32(U32(own, SECTOR_NEIGHBOUR_LIST), 4u * (uint32_t)(j - 1));
        if (!within_bounds(s, pos)) continue;
        if (!first_holding) first_holding = s;
        kind = search_sector(p, s, &face, &height);
        if (kind) sector = s, fmesh = U32(s, SECTOR_MESH);
      }
      if (!kind && first_holding) U32(p, PT_SECTOR) = first_holding;
    }
    if (!kind) {
      U8(p, PT_TOUCHING) = 0;
      continue;
    }
    if (sector) U32(p, PT_SECTOR) = sector;
    POD_CALL4(FN_TOUCH_FACE, p, face, fmesh, (uint32_t)(kind - 1));
    if (i == CHASSIS) continue;  /* its push (depth, bounce) comes with the walls (F074) */
    settle_wheel(car, p, height);
  }
  free_wheels_on_planes(car);

  /* The walls of every sector found (F076): the points' sectors, each once, in point order. */
  uint32_t found[NUM_POINTS];
  int nfound = 0;
  for (int i = 0; i < NUM_POINTS; i++) {
    uint32_t s = U32(car + CAR_POINT(i), PT_SECTOR);
    if (!s) continue;
    int seen = 0;
    for (int k = 0; k < nfound; k++) seen |= found[k] == s;
    if (!seen) found[nfound++] = s;
  }
  POD_CALL3(FN_SECTOR_WALLS, car, ADDR(found), (uint32_t)nfound);

  /* Wheel 1's sector as a number (000). */
  uint32_t s1 = U32(car, CAR_POINT(1) + PT_SECTOR);
  I32(car, CAR_WHEEL1_SECTOR) = s1 ? (int32_t)(s1 - table) / SECTOR_SIZE : -1;

  /* The fall test (F080): nothing found, and wheel 0 10 below its sector's floor bound. */
  int any = 0;
  for (int i = 0; i < NUM_POINTS; i++) any |= U8(car + CAR_POINT(i), PT_TOUCHING) != 0;
  uint32_t s0 = U32(car, CAR_POINT(0) + PT_SECTOR);
  if (!any && s0 && I32(car, CAR_POINT(0) + PT_POSITION + 8) < I32(s0, SECTOR_BOUNDS_MIN + 8) - FALL_BELOW)
    POD_CALL2(FN_PUT_BACK, car, driver);
  return 0;
}

/* ---- walls (F074, F076) ------------------------------------------------------------------------ */

/* 0x4167ec collide::wall_depth(eax = point, edx = normal, ebx = depth): keeps the point's deepest
 * push of this pass: penetration depth +0xc0, direction +0xc4, bounce +0xd0. */
int32_t collide_wall_depth(uint32_t point, uint32_t normal, uint32_t depth, uint32_t ecx) {
  (void)ecx;
  if ((int32_t)depth > I32(point, PT_WALL_DEPTH)) {
    I32(point, PT_WALL_DEPTH) = (int32_t)depth;
    *VEC(point, PT_WALL_DIR) = *(const vec3 *)PTR(normal);
    I32(point, PT_BOUNCE) = WALL_BOUNCE;
  }
  return 0;
}

/* One face against the point: over it, and nearer than its reach (radius, raised by the lift factor
 * +0x3c, F024: 0 in every car), but not more than 2.29 behind it (its other side). */
static void push_face(uint32_t point, uint32_t face, uint32_t mesh, uint32_t kind) {
  int32_t e = face_height(point, face, mesh, kind);
  int32_t radius = I32(point, PT_RADIUS);
  int32_t reach = radius + mul16(I32(point, PT_LIFT), radius);
  if (e < reach && e > -CONTACT_BELOW)
    POD_CALL3(FN_WALL_DEPTH, point, ADDR(face_normal(face, kind)), (uint32_t)(reach - e));
}

/* 0x4168dc collide::push_faces(eax = point, edx = sector, ebx = car): the sector's faces that push
 * the point out: walls for every point; for the chassis point anything under it, ground too (F074). */
int32_t collide_push_faces(uint32_t point, uint32_t sector, uint32_t car, uint32_t ecx) {
  (void)ecx;
  uint32_t mesh = U32(sector, SECTOR_MESH);
  uint8_t pushing = point == car + CAR_CHASSIS ? (FACE_WALL | FACE_GROUND) : FACE_WALL;
  int16_t nq = I16(mesh, MESH_QUAD_COUNT), nt = I16(mesh, MESH_TRI_COUNT);
  for (int16_t k = 0; k < nq; k++) {
    uint32_t q = U32(mesh, MESH_QUADS) + (uint32_t)k * QUAD_SIZE;
    if (!(U8(q, QUAD_FLAGS) & pushing)) continue;
    int32_t half = POD_CALL3(FN_QUAD_TEST, point, q, mesh);
    if (half) push_face(point, q, mesh, (uint32_t)half);
  }
  for (int16_t k = 0; k < nt; k++) {
    uint32_t t = U32(mesh, MESH_TRIS) + (uint32_t)k * TRI_SIZE;
    if (!(U8(t, TRI_FLAGS) & pushing)) continue;
    if (POD_CALL3(FN_TRI_TEST, point, t, mesh)) push_face(point, t, mesh, 0);
  }
  return 0;
}

/* 0x416be0 collide::sector_walls(eax = car, edx = sectors, ebx = count): the walls of every sector
 * found (F076), for each point. */
int32_t collide_sector_walls(uint32_t car, uint32_t sectors, uint32_t count, uint32_t ecx) {
  (void)ecx;
  for (uint32_t k = 0; k < count; k++) {
    uint32_t s = U32(sectors, 4 * k);
    for (int i = 0; i < NUM_POINTS; i++) POD_CALL3(FN_PUSH_FACES, car + CAR_POINT(i), s, car);
  }
  return 0;
}
