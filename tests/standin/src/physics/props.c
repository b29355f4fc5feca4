/* The props (F110-F121, F150): a prop type read from the environment's bytes
 * (0x46a780), its centre of mass (0x454654), the global list built from the environment (0x468cfc);
 * the faces a prop touches (0x4547a4), the impulse it is given (0x4214b4), a car against a prop
 * (0x4215a8), a hit prop knocking the others (0x421750), its motion (0x454a98) and its removal
 * (0x4adab0). Every rule the documents leave open (argument lists, the environment's format, the
 * plane search, the "small" and "slow" thresholds, the slant record's use): the props' entries of the
 * table of choices. props_setup (at the end) is the stand-in's environment: the race calls it. */
#include "props.h"

#include "internal.h"

STANDIN_INLINE int32_t wadd(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
STANDIN_INLINE int32_t wsub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
STANDIN_INLINE int32_t wneg(int32_t a) { return (int32_t)(0u - (uint32_t)a); }
/* |v| as the original's neg: |0x80000000| stays 0x80000000 */
STANDIN_INLINE int32_t wabs(int32_t v) { return v < 0 ? wneg(v) : v; }
STANDIN_INLINE int32_t comp(const vec3 *v, int k) { return k == 0 ? v->x : k == 1 ? v->y : v->z; }
STANDIN_INLINE void set_comp(vec3 *v, int k, int32_t x) {
  if (k == 0) v->x = x;
  else if (k == 1) v->y = x;
  else v->z = x;
}
STANDIN_INLINE uint8_t *hit_flag(int32_t i) { return PTR(POD_PROP_HIT + (uint32_t)i); }
STANDIN_INLINE void zero_words(uint32_t at, uint32_t size) {
  for (uint32_t o = 0; o < size; o += 4) U32(at, o) = 0;
}
STANDIN_INLINE void copy_words(uint32_t to, uint32_t from, uint32_t size) {
  for (uint32_t o = 0; o < size; o += 4) U32(to, o) = U32(from, o);
}
/* axis k of a matrix stored row by row: its column k (A26, as the cars' objects) */
STANDIN_INLINE vec3 matrix_axis(uint32_t m, int k) { return (vec3){I32(m, 4 * k), I32(m, 12 + 4 * k), I32(m, 24 + 4 * k)}; }
STANDIN_INLINE void set_matrix_axis(uint32_t m, int k, const vec3 *a) {
  I32(m, 4 * k) = a->x, I32(m, 12 + 4 * k) = a->y, I32(m, 24 + 4 * k) = a->z;
}

/* A box the hull test reads: its hull, the matrix whose columns are its axes, its position. A car's
 * drawn object gives +0x44, +0x48, +0x6c; a prop +0x34, +0x40, +0x98 (the props' choices: the hull
 * test's rule on a prop's fields). */
typedef struct box { uint32_t hull, matrix, position; } box;
STANDIN_INLINE box object_box(uint32_t obj) { return (box){U32(obj, OBJECT_HULL), obj + OBJECT_MATRIX, obj + OBJECT_POSITION}; }
STANDIN_INLINE box prop_box(uint32_t p) { return (box){U32(p, PROP_HULL), p + PROP_MATRIX, p + PROP_POSITION}; }

STANDIN_INLINE vec3 box_centre(box b) {
  vec3 c = *VEC(b.position, 0);
  const vec3 *h = VEC(b.hull, HULL_CENTRE);
  for (int k = 0; k < 3; k++) {
    vec3 axis = matrix_axis(b.matrix, k);
    int32_t s = comp(h, k);
    c.x = wadd(c.x, mul16(s, axis.x));
    c.y = wadd(c.y, mul16(s, axis.y));
    c.z = wadd(c.z, mul16(s, axis.z));
  }
  return c;
}

STANDIN_INLINE vec3 box_corner(box b, vec3 centre, const int32_t dots[3], int towards) {
  vec3 c = centre;
  for (int k = 0; k < 3; k++) {
    vec3 axis = matrix_axis(b.matrix, k);
    int32_t half = I32(b.hull, HULL_HALF + 4 * k);
    vec3 t = {mul16(half, axis.x), mul16(half, axis.y), mul16(half, axis.z)};
    if ((dots[k] >= 0) == (towards > 0)) vadd(&c, &c, &t);
    else vsub(&c, &c, &t);
  }
  return c;
}

/* cars::hull_test's rule (port/CHOICES.md, "cars::hull_test") on two boxes, the contact into 0x4f3380:
 * the positions within the summed radii axis by axis, the centres within it (0x423fd8), the reach
 * along the normal (0x423c64) past the distance; the contact's point and spread from the facing
 * corners. Returns 1 on a contact (the record written), else 0 (nothing written). */
STANDIN_INLINE int box_hull_test(box a, box b) {
  int32_t limit = wadd(I32(a.hull, HULL_RADIUS), I32(b.hull, HULL_RADIUS));
  const vec3 *pa = VEC(a.position, 0), *pb = VEC(b.position, 0);
  for (int k = 0; k < 3; k++)
    if (wabs(wsub(comp(pb, k), comp(pa, k))) > limit) return 0;
  vec3 ca = box_centre(a), cb = box_centre(b);
  int32_t distance = POD_CALL2(FN_CENTRE_DISTANCE, ADDR(&ca), ADDR(&cb));
  if (distance > limit) return 0;
  vec3 n;
  POD_CALL3(FN_NORMAL, ADDR(&ca), ADDR(&cb), ADDR(&n));
  int32_t dots_a[3], dots_b[3], reach = 0;
  for (int k = 0; k < 3; k++) {
    vec3 axis = matrix_axis(a.matrix, k);
    dots_a[k] = dot16(&n, &axis);
    reach = wadd(reach, mul16(wabs(dots_a[k]), I32(a.hull, HULL_HALF + 4 * k)));
  }
  for (int k = 0; k < 3; k++) {
    vec3 axis = matrix_axis(b.matrix, k);
    dots_b[k] = dot16(&n, &axis);
    reach = wadd(reach, mul16(wabs(dots_b[k]), I32(b.hull, HULL_HALF + 4 * k)));
  }
  int32_t overlap = wsub(reach, distance);
  if (overlap <= 0) return 0;
  vec3 corner_a = box_corner(a, ca, dots_a, +1), corner_b = box_corner(b, cb, dots_b, -1);
  vec3 point, spread;
  for (int k = 0; k < 3; k++) {
    int32_t ea = comp(&corner_a, k), eb = comp(&corner_b, k);
    set_comp(&point, k, wadd(ea, eb) >> 1);
    set_comp(&spread, k, wabs(wsub(ea, eb)) >> 1);
  }
  *VEC(POD_CAR_CONTACT, CONTACT_NORMAL) = n;
  I32(POD_CAR_CONTACT, CONTACT_OVERLAP) = overlap;
  *VEC(POD_CAR_CONTACT, CONTACT_POINT) = point;
  *VEC(POD_CAR_CONTACT, CONTACT_SPREAD) = spread;
  I32(POD_CAR_CONTACT, CONTACT_DISTANCE) = distance;
  return 1;
}

/* cars::impulse's rule (entry 8, R3) on two bodies' velocities and masses: the closing speed along the
 * normal x ((2 ma mb / (ma + mb)) >> 8) / (dt << 8); 0 when they part. */
STANDIN_INLINE int32_t body_impulse(uint32_t va, uint32_t ma_at, uint32_t vb, uint32_t mb_at, uint32_t normal) {
  vec3 dv;
  vsub(&dv, PTR(va), PTR(vb));
  int32_t closing = dot16(&dv, PTR(normal));
  if (closing <= 0) return 0;
  int64_t ma = I32(ma_at, 0), mb = I32(mb_at, 0);
  if (ma + mb <= 0) return 0;
  int32_t reduced = (int32_t)(((2 * ma * mb) / (ma + mb)) >> 8);
  int32_t dt = I32(POD_FRAME, FRAME_STEP_DT);
  return qdiv(mul16(closing, reduced), (int32_t)((uint32_t)dt << 8));
}

/* 0x46a780 props::kind(eax = the type's bytes, edx = the 0xd0 record, ebx = free memory) -> eax = the
 * free memory after what it took. The bytes: object, the hull's seven words, mass, inertia, health,
 * friction, chain, the point count, then per point its radius, offset and mass (002's order). The hull
 * and then the points go to the free memory, each point in the first sector (002). */
STANDIN_CODE int32_t props_kind(uint32_t bytes, uint32_t type, uint32_t free, uint32_t ecx) {
  (void)ecx;
  zero_words(type, PROP_SIZE);
  U32(type, PROP_OBJECT) = U32(bytes, 0);
  copy_words(free, bytes + 4, HULL_SIZE);
  U32(type, PROP_HULL) = free;
  free += HULL_SIZE;
  I32(type, PROP_MASS) = I32(bytes, 0x20);
  copy_words(type + PROP_INERTIA, bytes + 0x24, 12);
  I32(type, PROP_HEALTH) = I32(bytes, 0x30);
  I32(type, PROP_FRICTION) = I32(bytes, 0x34);
  U32(type, PROP_CHAIN) = U32(bytes, 0x38);
  int32_t n = I32(bytes, 0x3c);
  I32(type, PROP_POINT_COUNT) = n;
  U32(type, PROP_POINTS) = free;
  uint32_t first_sector = U32(POD_SECTOR_TABLE, 0);
  for (int32_t k = 0; k < n; k++) {
    uint32_t pt = free + (uint32_t)k * POINT_REC_SIZE, src = bytes + PROP_TYPE_BYTES + (uint32_t)k * PROP_POINT_BYTES;
    zero_words(pt, POINT_REC_SIZE);
    I32(pt, PP_RADIUS) = I32(src, 0);
    copy_words(pt + PP_OFFSET, src + 4, 12);
    I32(pt, PP_MASS) = I32(src, 16);
    U32(pt, PP_SECTOR) = first_sector;
  }
  return (int32_t)(free + (uint32_t)(n > 0 ? n : 0) * POINT_REC_SIZE);
}

/* 0x454654 props::centre(eax = record): the centre of mass, the sum of each point's offset x its mass
 * scaled by 2^32 / the prop's mass (F150, A29), taken off every point's offset and the hull's centre. */
STANDIN_CODE int32_t props_centre(uint32_t rec, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t mass = I32(rec, PROP_MASS);
  if (mass <= 0) return 0;
  int32_t n = I32(rec, PROP_POINT_COUNT);
  uint32_t points = U32(rec, PROP_POINTS);
  vec3 sum = {0, 0, 0};
  for (int32_t k = 0; k < n; k++) {
    uint32_t pt = points + (uint32_t)k * POINT_REC_SIZE;
    int32_t m = I32(pt, PP_MASS);
    const vec3 *o = VEC(pt, PP_OFFSET);
    sum.x = wadd(sum.x, mul16(o->x, m));
    sum.y = wadd(sum.y, mul16(o->y, m));
    sum.z = wadd(sum.z, mul16(o->z, m));
  }
  int32_t r = (int32_t)(uint32_t)(((int64_t)1 << 32) / mass);
  vec3 c = {mul16(sum.x, r), mul16(sum.y, r), mul16(sum.z, r)};
  for (int32_t k = 0; k < n; k++) {
    uint32_t pt = points + (uint32_t)k * POINT_REC_SIZE;
    vsub(VEC(pt, PP_OFFSET), VEC(pt, PP_OFFSET), &c);
  }
  uint32_t hull = U32(rec, PROP_HULL);
  vsub(VEC(hull, HULL_CENTRE), VEC(hull, HULL_CENTRE), &c);
  return 0;
}

/* 0x468cfc props::build(eax = environment, edx = free memory) -> eax = the free memory after it: the
 * type records, each type (props::kind, props::centre), then the props (at most 32), each a copy of its
 * type with its own points, its macro list, position and matrix from the file, every point in the
 * sector that holds the position (world::sector_any), its hit flag clear. */
STANDIN_CODE int32_t props_build(uint32_t env, uint32_t free, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int32_t types = I32(env, 0);
  uint32_t bytes = env + 4, type_records = free;
  free += (uint32_t)types * PROP_SIZE;
  for (int32_t t = 0; t < types; t++) {
    uint32_t type = type_records + (uint32_t)t * PROP_SIZE;
    free = (uint32_t)POD_CALL3(FN_PROP_KIND, bytes, type, free);
    POD_CALL1(FN_PROP_CENTRE, type);
    bytes += PROP_TYPE_BYTES + (uint32_t)I32(bytes, 0x3c) * PROP_POINT_BYTES;
  }
  int32_t count = I32(bytes, 0);
  bytes += 4;
  if (count > PROPS_MAX) count = PROPS_MAX;
  U32(POD_PROP_LIST, 0) = free;
  I32(POD_PROP_COUNT, 0) = count;
  uint32_t list = free;
  free += (uint32_t)count * PROP_SIZE;
  for (int32_t j = 0; j < count; j++, bytes += PROP_BYTES) {
    uint32_t p = list + (uint32_t)j * PROP_SIZE;
    uint32_t type = type_records + U32(bytes, 0) * PROP_SIZE;
    copy_words(p, type, PROP_SIZE);
    U32(p, PROP_MACRO_LIST) = U32(bytes, 4);
    copy_words(p + PROP_POSITION, bytes + 8, 12);
    copy_words(p + PROP_MATRIX, bytes + 20, 36);
    int32_t n = I32(p, PROP_POINT_COUNT);
    if (n < 0) n = 0;
    copy_words(free, U32(p, PROP_POINTS), (uint32_t)n * POINT_REC_SIZE);
    U32(p, PROP_POINTS) = free;
    free += (uint32_t)n * POINT_REC_SIZE;
    if (n > 0) {
      uint32_t sector = (uint32_t)POD_CALL1(FN_SECTOR_ANY, p + PROP_POSITION);
      for (int32_t k = 0; k < n; k++) U32(U32(p, PROP_POINTS) + (uint32_t)k * POINT_REC_SIZE, PP_SECTOR) = sector;
    }
    *hit_flag(j) = 0;
  }
  return (int32_t)free;
}

/* The sectors a prop's faces are searched in: its first point's sector, then that sector's
 * neighbours in their list's order (none when out of play). */
STANDIN_INLINE uint32_t search_sector(uint32_t s0, int32_t j) {
  return j < 0 ? s0 : U32(U32(s0, SECTOR_NEIGHBOUR_LIST), 4 * j);
}

/* A face's corner 0: its first corner number's vertex in the mesh. */
STANDIN_INLINE const vec3 *corner0(uint32_t mesh, uint32_t corners) {
  return VEC(U32(mesh, MESH_VERTICES), 12u * U16(corners, 0));
}

/* The height of the prop's position over a face's plane (through corner 0, along its normal). */
STANDIN_INLINE int32_t height_over(uint32_t p, uint32_t mesh, uint32_t face, uint32_t corners) {
  vec3 d;
  vsub(&d, VEC(p, PROP_POSITION), corner0(mesh, corners));
  return dot16(&d, PTR(face));
}

/* 0x4547a4 props::faces(eax = prop): in its first point's sector and that sector's neighbours, quads
 * then triangles in order: the ground, the first face flagged ground the position is over
 * (collide::over_quad / over_triangle) lying from 2.29 below it to the hull's radius above; the wall, in a
 * second search, the first face flagged wall whose plane lies within the hull's radius in front of the
 * position. Each with its corner 0 as the plane's point; none: 0 and (0, 0, 0). */
STANDIN_CODE int32_t props_faces(uint32_t p, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t ground = 0, wall = 0;
  vec3 g = {0, 0, 0}, w = {0, 0, 0};
  if (I32(p, PROP_POINT_COUNT) > 0) {
    uint32_t s0 = U32(U32(p, PROP_POINTS), PP_SECTOR);
    int32_t neighbours = I32(s0, SECTOR_NEIGHBOURS);
    if (neighbours < 0) neighbours = 0;  /* out of play: no list */
    uint32_t hull = U32(p, PROP_HULL);
    for (int32_t j = -1; j < neighbours && !ground; j++) {
      uint32_t mesh = U32(search_sector(s0, j), SECTOR_MESH);
      int32_t quads = I16(mesh, MESH_QUAD_COUNT);
      uint32_t q = U32(mesh, MESH_QUADS);
      for (int32_t f = 0; f < quads && !ground; f++, q += QUAD_SIZE) {
        if (!(U8(q, QUAD_FLAGS) & FACE_GROUND)) continue;
        if (!POD_CALL3(FN_QUAD_TEST, p + PROP_POSITION, q, mesh)) continue;
        int32_t h = height_over(p, mesh, q, q + QUAD_CORNERS);
        if (h >= -PROP_FLOOR_BELOW && h <= I32(hull, HULL_RADIUS)) ground = q, g = *corner0(mesh, q + QUAD_CORNERS);
      }
      int32_t tris = I16(mesh, MESH_TRI_COUNT);
      uint32_t t = U32(mesh, MESH_TRIS);
      for (int32_t f = 0; f < tris && !ground; f++, t += TRI_SIZE) {
        if (!(U8(t, TRI_FLAGS) & FACE_GROUND)) continue;
        if (!POD_CALL3(FN_TRI_TEST, p + PROP_POSITION, t, mesh)) continue;
        int32_t h = height_over(p, mesh, t, t + TRI_CORNERS);
        if (h >= -PROP_FLOOR_BELOW && h <= I32(hull, HULL_RADIUS)) ground = t, g = *corner0(mesh, t + TRI_CORNERS);
      }
    }
    for (int32_t j = -1; j < neighbours && !wall; j++) {
      uint32_t mesh = U32(search_sector(s0, j), SECTOR_MESH);
      int32_t quads = I16(mesh, MESH_QUAD_COUNT);
      uint32_t q = U32(mesh, MESH_QUADS);
      for (int32_t f = 0; f < quads && !wall; f++, q += QUAD_SIZE) {
        if (!(U8(q, QUAD_FLAGS) & FACE_WALL)) continue;
        int32_t d = height_over(p, mesh, q, q + QUAD_CORNERS);
        if (d >= 0 && d <= I32(hull, HULL_RADIUS)) wall = q, w = *corner0(mesh, q + QUAD_CORNERS);
      }
      int32_t tris = I16(mesh, MESH_TRI_COUNT);
      uint32_t t = U32(mesh, MESH_TRIS);
      for (int32_t f = 0; f < tris && !wall; f++, t += TRI_SIZE) {
        if (!(U8(t, TRI_FLAGS) & FACE_WALL)) continue;
        int32_t d = height_over(p, mesh, t, t + TRI_CORNERS);
        if (d >= 0 && d <= I32(hull, HULL_RADIUS)) wall = t, w = *corner0(mesh, t + TRI_CORNERS);
      }
    }
  }
  U32(p, PROP_REST_FACE) = ground;
  *VEC(p, PROP_REST_POINT) = g;
  U32(p, PROP_WALL_FACE) = wall;
  *VEC(p, PROP_WALL_POINT) = w;
  return 0;
}

/* 0x4214b4 props::impulse(eax = prop, edx = normal, ebx = impulse, ecx = point): the impulse along the
 * normal into the prop's force and r x F into its torque; half its size off the prop's health (F112),
 * running its macro chain when that runs out, as a car's part does (port/CHOICES.md, "props::impulse"). */
STANDIN_CODE int32_t props_impulse(uint32_t p, uint32_t normal, uint32_t impulse, uint32_t point) {
  vec3 f, r, t;
  scale16(PTR(normal), (int32_t)impulse, &f);
  vadd(VEC(p, PROP_FORCE), VEC(p, PROP_FORCE), &f);
  vsub(&r, PTR(point), VEC(p, PROP_POSITION));
  cross16(&r, &f, &t);
  vadd(VEC(p, PROP_TORQUE), VEC(p, PROP_TORQUE), &t);
  int32_t share = wabs((int32_t)impulse) >> 1, old = I32(p, PROP_HEALTH);
  int32_t h = wsub(old, share);
  if (h > 0) {
    I32(p, PROP_HEALTH) = h;
    return 0;
  }
  I32(p, PROP_HEALTH) = 0;
  if (old <= 0) return 0;  /* already run out */
  uint32_t e = U32(p, PROP_CHAIN);
  if (e == 0) return 0;
  while (e) {
    uint32_t next = U32(e, CHAIN_NEXT);
    POD_CALL_INDIRECT2(e + CHAIN_MACRO, p, U32(e, CHAIN_ARGUMENT));
    e = next;
  }
  int32_t now = wadd(I32(p, PROP_HEALTH), h);
  I32(p, PROP_HEALTH) = now > 0 ? now : 0;
  return 0;
}

/* 0x4215a8 props::car_hit(eax = racer, edx = prop number) -> eax = 1 on a contact (F111): the hull test
 * with the prop as the second box, the car's parts near the contact (both must count), the impulse;
 * the prop hit, pushed by half the overlap and given the impulse; the car pushed back, its points
 * placed, the impulse carried, its damage, its drawn object placed again. */
STANDIN_CODE int32_t props_car_hit(uint32_t racer, uint32_t i, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t driver = DRIVER(racer), car = CAR(racer);
  uint32_t obj = U32(driver, DRV_OBJECT);
  if (obj == 0) return 0;
  uint32_t p = prop_record((int32_t)i);
  if (!box_hull_test(object_box(obj), prop_box(p))) return 0;
  uint32_t parts = (uint32_t)POD_CALL3(FN_MARK_PARTS, obj, car, POD_CAR_CONTACT);
  if (parts == 0) return 0;
  uint32_t normal = POD_CAR_CONTACT + CONTACT_NORMAL, point = POD_CAR_CONTACT + CONTACT_POINT;
  int32_t impulse = body_impulse(car + CAR_VELOCITY, car + CAR_MASS, p + PROP_VELOCITY, p + PROP_MASS, normal);
  vec3 push;
  scale16(PTR(normal), I32(POD_CAR_CONTACT, CONTACT_OVERLAP) >> 1, &push);
  *hit_flag((int32_t)i) = 1;
  vadd(VEC(p, PROP_POSITION), VEC(p, PROP_POSITION), &push);
  POD_CALL4(FN_PROP_IMPULSE, p, normal, (uint32_t)impulse, point);
  vsub(VEC(car, CAR_BODY_CENTRE), VEC(car, CAR_BODY_CENTRE), &push);
  POD_CALL1(FN_PLACE_POINTS, car);
  POD_CALL4(FN_CARRY, car, normal, (uint32_t)-impulse, point);
  POD_CALL3(FN_DAMAGE_HIT, car, parts, (uint32_t)impulse);
  POD_CALL2(FN_POSE, car, driver);
  return 1;
}

/* One prop takes the other's rest plane (a face, or the slant record). */
STANDIN_INLINE void take_rest(uint32_t to, uint32_t from) {
  U32(to, PROP_REST_FACE) = U32(from, PROP_REST_FACE);
  *VEC(to, PROP_REST_POINT) = *VEC(from, PROP_REST_POINT);
  U32(to, PROP_HELD) = 1;
}

/* The upper prop rests on the contact's plane, kept in the slant record (F114). */
STANDIN_INLINE void rest_on_slant(uint32_t upper, const vec3 *up, const vec3 *point) {
  *VEC(POD_PROP_SLANT, 0) = *up;
  *VEC(POD_PROP_SLANT, 12) = *point;
  U32(upper, PROP_REST_FACE) = POD_PROP_SLANT;
  *VEC(upper, PROP_REST_POINT) = *point;
  U32(upper, PROP_HELD) = 1;
}

/* 0x421750 props::knock(eax = prop number): the prop pushes each other prop its hull touches with a
 * quarter of the impulse between them, and takes the opposite quarter (F113); the two hand on what they
 * rest on (F114): past a slant of 0.885 the upper one rests on the contact's plane (the slant record
 * 0x4f9440), else one without a rest face takes the other's. */
STANDIN_CODE int32_t props_knock(uint32_t a, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t pa = prop_record((int32_t)a);
  uint32_t normal = POD_CAR_CONTACT + CONTACT_NORMAL, point = POD_CAR_CONTACT + CONTACT_POINT;
  for (int32_t b = 0; b < I32(POD_PROP_COUNT, 0); b++) {
    if ((uint32_t)b == a) continue;
    uint32_t pb = prop_record(b);
    if (!box_hull_test(prop_box(pa), prop_box(pb))) continue;
    int32_t impulse = body_impulse(pa + PROP_VELOCITY, pa + PROP_MASS, pb + PROP_VELOCITY, pb + PROP_MASS, normal);
    int32_t quarter = impulse >> 2;
    POD_CALL4(FN_PROP_IMPULSE, pb, normal, (uint32_t)quarter, point);
    POD_CALL4(FN_PROP_IMPULSE, pa, normal, (uint32_t)wneg(quarter), point);
    *hit_flag(b) = 1;
    const vec3 *n = PTR(normal);
    if (n->z > PROP_SLANT_MIN) {
      rest_on_slant(pb, n, PTR(point));
    } else if (n->z < -PROP_SLANT_MIN) {
      vec3 up = {wneg(n->x), wneg(n->y), wneg(n->z)};
      rest_on_slant(pa, &up, PTR(point));
    } else if (U32(pa, PROP_REST_FACE) == 0 && U32(pb, PROP_REST_FACE) != 0) {
      take_rest(pa, pb);
    } else if (U32(pb, PROP_REST_FACE) == 0 && U32(pa, PROP_REST_FACE) != 0) {
      take_rest(pb, pa);
    }
  }
  return 0;
}

/* A point's push out of a plane (F116): depth x mass / dt^2 along the plane's normal when the point's
 * sphere reaches below it. Returns 1 when it does. */
STANDIN_INLINE int plane_push(uint32_t pt, const vec3 *place, uint32_t face, const vec3 *at, int32_t dt2, vec3 *push) {
  vec3 d, s;
  vsub(&d, place, at);
  int32_t depth = wsub(I32(pt, PP_RADIUS), dot16(&d, PTR(face)));
  if (depth <= 0) return 0;
  scale16(PTR(face), qdiv(mul16(depth, I32(pt, PP_MASS)), dt2), &s);
  vadd(push, push, &s);
  return 1;
}

STANDIN_INLINE vec3 unit(vec3 v) {
  int32_t len = length16(&v);
  return (vec3){qdiv(v.x, len), qdiv(v.y, len), qdiv(v.z, len)};
}

/* 0x454a98 props::motion(eax = prop number) (F115-F121): its faces (unless a neighbour handed it its
 * plane this pass); each point placed, weighed and pushed out of the ground and the wall; the force
 * along the ground cancelled while friction holds it; velocity, position by the mean velocity, spin by
 * the inertia, the axes turned and squared again; on the ground the spin damped and a slow prop on
 * three points settled; a prop fallen 8 below its sector with nothing holding it removed. */
STANDIN_CODE int32_t props_motion(uint32_t i, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t p = prop_record((int32_t)i);
  uint32_t held = U32(p, PROP_HELD);
  if (held == 0) POD_CALL1(FN_PROP_FACES, p);
  uint32_t ground = U32(p, PROP_REST_FACE), wall = U32(p, PROP_WALL_FACE);
  int32_t dt = I32(POD_FRAME, FRAME_STEP_DT), dt2 = mul16(dt, dt);
  vec3 *pos = VEC(p, PROP_POSITION);
  vec3 force = *VEC(p, PROP_FORCE), torque = *VEC(p, PROP_TORQUE);
  vec3 axes[3];
  for (int k = 0; k < 3; k++) axes[k] = matrix_axis(p + PROP_MATRIX, k);
  int32_t n = I32(p, PROP_POINT_COUNT), on_ground = 0;
  uint32_t points = U32(p, PROP_POINTS);
  for (int32_t k = 0; k < n; k++) {
    uint32_t pt = points + (uint32_t)k * POINT_REC_SIZE;
    const vec3 *off = VEC(pt, PP_OFFSET);
    vec3 place = *pos;
    for (int a = 0; a < 3; a++) {
      int32_t o = comp(off, a);
      place.x = wadd(place.x, mul16(o, axes[a].x));
      place.y = wadd(place.y, mul16(o, axes[a].y));
      place.z = wadd(place.z, mul16(o, axes[a].z));
    }
    vec3 f = {0, 0, wneg((int32_t)((uint32_t)I32(pt, PP_MASS) * PROP_GRAVITY))};  /* F115 */
    vec3 push = {0, 0, 0};
    uint32_t flags = 0;
    if (ground && plane_push(pt, &place, ground, VEC(p, PROP_REST_POINT), dt2, &push)) flags |= PP_ON_GROUND, on_ground++;
    if (wall && plane_push(pt, &place, wall, VEC(p, PROP_WALL_POINT), dt2, &push)) flags |= PP_ON_WALL;
    vadd(&f, &f, &push);
    *VEC(pt, PP_PLACE) = place;
    *VEC(pt, PP_FORCE) = f;
    *VEC(pt, PP_PUSH) = push;
    U32(pt, PP_FLAGS) = flags;
    vec3 r, t;
    vadd(&force, &force, &f);
    vsub(&r, &place, pos);
    cross16(&r, &f, &t);
    vadd(&torque, &torque, &t);
  }
  int32_t mass = I32(p, PROP_MASS);
  if (on_ground > 0) {  /* F117: held by friction while the force along the ground is small */
    vec3 normal_part, along;
    scale16(PTR(ground), dot16(&force, PTR(ground)), &normal_part);
    vsub(&along, &force, &normal_part);
    if (length16(&along) <= mul16(I32(p, PROP_FRICTION), (int32_t)((uint32_t)mass * PROP_GRAVITY)))
      vsub(&force, &force, &along);
  }
  vec3 *v = VEC(p, PROP_VELOCITY);
  for (int a = 0; a < 3; a++) {  /* F118: velocity, then the position by the mean velocity */
    int32_t old = comp(v, a), now = wadd(old, mul16(qdiv(comp(&force, a), mass), dt));
    set_comp(v, a, now);
    set_comp(pos, a, wadd(comp(pos, a), mul16(wadd(old, now) >> 1, dt)));
  }
  vec3 *spin = VEC(p, PROP_SPIN);
  for (int a = 0; a < 3; a++)
    set_comp(spin, a, wadd(comp(spin, a), mul16(qdiv(dot16(&torque, &axes[a]), I32(p, PROP_INERTIA + 4 * a)), dt)));
  vec3 w = {0, 0, 0};
  for (int a = 0; a < 3; a++) {
    int32_t angle = mul16(comp(spin, a), dt);
    w.x = wadd(w.x, mul16(angle, axes[a].x));
    w.y = wadd(w.y, mul16(angle, axes[a].y));
    w.z = wadd(w.z, mul16(angle, axes[a].z));
  }
  vec3 turned0, turned1, d;
  cross16(&w, &axes[0], &d);
  vadd(&turned0, &axes[0], &d);
  cross16(&w, &axes[1], &d);
  vadd(&turned1, &axes[1], &d);
  vec3 forward = unit(turned0), up, left;  /* squared again */
  cross16(&forward, &turned1, &up);
  up = unit(up);
  cross16(&up, &forward, &left);
  set_matrix_axis(p + PROP_MATRIX, 0, &forward);
  set_matrix_axis(p + PROP_MATRIX, 1, &left);
  set_matrix_axis(p + PROP_MATRIX, 2, &up);
  if (on_ground > 0)  /* F119 */
    *spin = (vec3){mul16(spin->x, PROP_SPIN_KEPT), mul16(spin->y, PROP_SPIN_KEPT), mul16(spin->z, PROP_SPIN_KEPT)};
  *VEC(p, PROP_FORCE) = (vec3){0, 0, 0};
  *VEC(p, PROP_TORQUE) = (vec3){0, 0, 0};
  U32(p, PROP_HELD) = 0;
  if (on_ground >= PROP_SETTLE_POINTS && length16(v) < PROP_SLOW && length16(spin) < PROP_SLOW)  /* F120 */
    *hit_flag((int32_t)i) = 0;
  if (held == 0 && n > 0) {  /* F121 */
    uint32_t sector = U32(points, PP_SECTOR);
    if (pos->z < wsub(I32(sector, SECTOR_BOUNDS_MIN + 8), PROP_FALL_BELOW)) POD_CALL1(FN_PROP_REMOVE, i);
  }
  return 0;
}

/* 0x4adab0 props::remove(eax = prop number): the records and hit flags behind it move up one, the
 * last flag cleared, the count one less (F121); the last record stays as it was. */
STANDIN_CODE int32_t props_remove(uint32_t i, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t count = I32(POD_PROP_COUNT, 0);
  for (int32_t j = (int32_t)i; j < count - 1; j++) {
    copy_words(prop_record(j), prop_record(j + 1), PROP_SIZE);
    *hit_flag(j) = *hit_flag(j + 1);
  }
  if (count > 0) *hit_flag(count - 1) = 0;
  I32(POD_PROP_COUNT, 0) = count - 1;
  return 0;
}

/* ---- the stand-in's environment (props_setup) --------------------------------------------------- */

/* Words laid one after another into the environment's bytes. */
typedef struct writer { uint32_t at; } writer;
STANDIN_INLINE void put(writer *w, int32_t v) {
  I32(w->at, 0) = v;
  w->at += 4;
}
STANDIN_INLINE void put3(writer *w, fx x, fx y, fx z) { put(w, x), put(w, y), put(w, z); }

#define FX(v) ((fx)((v) * 65536.0 + ((v) < 0 ? -0.5 : 0.5)))
#define CHAIN_AT (POD_PROP_ENV + 0xf00)  /* the box's chain element, inside the environment's bytes */
enum { CONE, DRUM, BOX, BOX_DAMAGED, TYPES };

/* A type (the props' choices, the environment's format): the hull as half sizes and centre (its radius
 * is sqrt(x^2 + y^2), F148, written here from the data), mass = the points' masses. */
STANDIN_INLINE void put_type(writer *w, int object, fx hx, fx hy, fx hz, fx radius, fx cz, fx inertia, fx health,
                             fx friction, uint32_t chain, int points) {
  put(w, object);
  put3(w, hx, hy, hz);
  put(w, radius);
  put3(w, 0, 0, cz);
  w->at += 4;  /* the mass, written once the points are summed */
  put3(w, inertia, inertia, inertia);
  put(w, health);
  put(w, friction);
  put(w, (int32_t)chain);
  put(w, points);
}

/* A cone: three base points and the apex (the tip light); the origin on the base. */
STANDIN_INLINE void put_cone(writer *w) {
  uint32_t start = w->at;
  put_type(w, 1, FX(0.25), FX(0.25), FX(0.4), FX(0.353553), FX(0.4), FX(0.05), 3000, FX(0.5), 0, 4);
  put(w, FX(0.05)), put3(w, FX(0.25), 0, 0), put(w, FX(0.25));
  put(w, FX(0.05)), put3(w, FX(-0.125), FX(0.216506), 0), put(w, FX(0.25));
  put(w, FX(0.05)), put3(w, FX(-0.125), FX(-0.216506), 0), put(w, FX(0.25));
  put(w, FX(0.05)), put3(w, 0, 0, FX(0.8)), put(w, FX(0.1));
  I32(start, 0x20) = FX(0.85);
}

/* A drum: four points round its foot and four round its top. */
STANDIN_INLINE void put_drum(writer *w) {
  uint32_t start = w->at;
  put_type(w, 2, FX(0.4), FX(0.4), FX(0.5), FX(0.565685), FX(0.5), FX(0.5), 20000, FX(0.8), 0, 8);
  for (int top = 0; top < 2; top++)
    for (int k = 0; k < 4; k++) {
      fx x = k == 0 ? FX(0.4) : k == 2 ? FX(-0.4) : 0, y = k == 1 ? FX(0.4) : k == 3 ? FX(-0.4) : 0;
      put(w, FX(0.05)), put3(w, x, y, top ? FX(1.0) : 0), put(w, FX(0.75));
    }
  I32(start, 0x20) = FX(6.0);
}

/* A box of 0.6 (and its damaged template, squashed to 0.4): its eight corners. */
STANDIN_INLINE void put_box(writer *w, int object, fx height, fx health, uint32_t chain) {
  uint32_t start = w->at;
  put_type(w, object, FX(0.3), FX(0.3), height >> 1, FX(0.424264), height >> 1, FX(0.25), health, FX(0.6), chain, 8);
  for (int k = 0; k < 8; k++)
    put(w, FX(0.05)), put3(w, (k & 1) ? FX(0.3) : FX(-0.3), (k & 2) ? FX(0.3) : FX(-0.3), (k & 4) ? height : 0),
        put(w, FX(0.5));
  I32(start, 0x20) = FX(4.0);
}

/* A prop on the ring: at `angle` (16.16 rad, counter-clockwise from +x), `lane` out from the ring's
 * centre line (radius 120), `z` its centre of mass's height; upright, its axes the world's. */
STANDIN_INLINE void put_prop(writer *w, int type, fx angle, fx lane, fx z) {
  fx c = POD_CALL1(FN_COS16, (uint32_t)angle), s = POD_CALL1(FN_SIN16, (uint32_t)angle);
  fx r = TRACK_RADIUS + lane;
  put(w, type);
  put(w, 0);  /* the macro list: none */
  put3(w, mul16(r, c), mul16(r, s), z);
  put3(w, FX_ONE, 0, 0);
  put3(w, 0, FX_ONE, 0);
  put3(w, 0, 0, FX_ONE);
}

#define DROPPED_PROP 6   /* falls onto the road from 0.36 above its rest and settles */
#define FALLING_PROP 5   /* over the gap's open side (ring 10): falls, 8 below its sector, removed (F121) */

/* The stand-in's environment (the props' choices): four types (a cone, a drum, a box and the box's
 * damaged template, which the box's chain turns it into when its health runs out) and eight props in
 * the lanes the computer cars keep in the first quarter of the ring (racer 2 at -3, 3 at +3, 5 at +5,
 * 7 at +2, 0 and 4 at -4 and -5): a cone each in racer 2's and 3's lane, a stack of two boxes in
 * racer 7's, a drum in racer 5's, a box between racers 0's and 4's; one over the gap's open side and
 * one just above the road, both let fall from the start (their hit flags set). The types from the free
 * memory at 0x652000; props::build lays them out. Called by the race's set-up after the track. */
STANDIN_CODE void props_setup(void) {
  writer w = {POD_PROP_ENV};
  put(&w, TYPES);
  put_cone(&w);
  put_drum(&w);
  put_box(&w, 3, FX(0.6), 3000, CHAIN_AT);
  put_box(&w, 4, FX(0.4), 2000, 0);
  /* the box's chain: to_template (0x4545a8) with the damaged box's type record (types come first in
   * the free memory, 0xd0 each) */
  U32(CHAIN_AT, CHAIN_MACRO) = FN_TO_TEMPLATE;
  U32(CHAIN_AT, CHAIN_ARGUMENT) = POD_PROP_FREE + BOX_DAMAGED * PROP_SIZE;
  U32(CHAIN_AT, CHAIN_NEXT) = 0;
  put(&w, 8);
  put_prop(&w, CONE, FX(0.30), FX(-3.0), FX(0.144118));
  put_prop(&w, CONE, FX(0.34), FX(3.0), FX(0.144118));
  put_prop(&w, BOX, FX(0.36), FX(1.8), FX(0.35));
  put_prop(&w, BOX, FX(0.36), FX(1.8), FX(0.93));  /* on the first, their hulls 0.02 into each other */
  put_prop(&w, DRUM, FX(0.40), FX(5.0), FX(0.55));
  put_prop(&w, CONE, FX(1.374447), FX(11.0), FX(1.0));   /* ring 10.5, 3 past the road's open edge */
  put_prop(&w, CONE, FX(0.50), FX(0.0), FX(0.5));
  put_prop(&w, BOX, FX(0.45), FX(-4.5), FX(0.35));
  POD_CALL2(FN_PROP_BUILD, POD_PROP_ENV, POD_PROP_FREE);
  U8(POD_PROP_HIT, FALLING_PROP) = 1;
  U8(POD_PROP_HIT, DROPPED_PROP) = 1;
}
