/* Car against car (F088-F097): the centres' distance (0x423fd8) and normal
 * (0x423c64), the hull test (0x420548), the parts near a contact (0x4209c8), the impulse (0x420adc)
 * and its carrying into the next step (0x420b4c), one pair (0x42127c) and the collision pass
 * (0x42196c). Every rule the documents leave open (the near rule, the corners' signs, the axis
 * tie-break, the push amounts, the order inside a pair): port/CHOICES.md, "Car against car and damage". */
#include "objects.h"
#include "props.h"

STANDIN_INLINE int32_t wadd(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
STANDIN_INLINE int32_t wsub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
STANDIN_INLINE int32_t comp(const vec3 *v, int k) { return k == 0 ? v->x : k == 1 ? v->y : v->z; }

/* 0x423fd8 cars::centre_distance(eax = a, edx = b): the length of b - a. */
STANDIN_CODE int32_t cars_centre_distance(uint32_t a, uint32_t b, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  vec3 d;
  vsub(&d, PTR(b), PTR(a));
  return length16(&d);
}

/* 0x423c64 cars::normal(eax = a, edx = b, ebx = out): the unit vector from a to b (each component
 * divided by the length, which comes through the square-root table); (0, 0, 1) when a = b. Returns
 * the length. */
STANDIN_CODE int32_t cars_normal(uint32_t a, uint32_t b, uint32_t out, uint32_t ecx) {
  (void)ecx;
  vec3 d;
  vsub(&d, PTR(b), PTR(a));
  int32_t len = length16(&d);
  vec3 *n = PTR(out);
  if (len == 0) {
    *n = (vec3){0, 0, FX_ONE};
    return 0;
  }
  n->x = qdiv(d.x, len);
  n->y = qdiv(d.y, len);
  n->z = qdiv(d.z, len);
  return len;
}

/* The hull's centre in the world: the object's position + the centre along the object's axes. */
STANDIN_INLINE vec3 world_centre(uint32_t obj, uint32_t hull) {
  vec3 c = *VEC(obj, OBJECT_POSITION);
  const vec3 *h = VEC(hull, HULL_CENTRE);
  for (int k = 0; k < 3; k++) {
    vec3 axis = object_axis(obj, k);
    int32_t s = comp(h, k);
    c.x = wadd(c.x, mul16(s, axis.x));
    c.y = wadd(c.y, mul16(s, axis.y));
    c.z = wadd(c.z, mul16(s, axis.z));
  }
  return c;
}

/* The box's corner that faces along `sign` x the normal: centre +- each half size along its axis
 * (+ when n . axis >= 0). `dots` are n . axis_k; `towards` is +1 for a (facing b), -1 for b. */
STANDIN_INLINE vec3 facing_corner(uint32_t obj, uint32_t hull, vec3 centre, const int32_t dots[3], int towards) {
  vec3 c = centre;
  for (int k = 0; k < 3; k++) {
    vec3 axis = object_axis(obj, k);
    int32_t half = I32(hull, HULL_HALF + 4 * k);
    vec3 t = {mul16(half, axis.x), mul16(half, axis.y), mul16(half, axis.z)};
    int add = (dots[k] >= 0) == (towards > 0);
    if (add) vadd(&c, &c, &t);
    else vsub(&c, &c, &t);
  }
  return c;
}

/* 0x420548 cars::hull_test(eax = object a, edx = object b, ebx = contact): F090, F091. The positions
 * within the summed radii on each axis, the centres within that distance, then the two boxes' reach
 * along the normal past the distance. On a contact the record gets the normal, the overlap, the
 * midpoint of the facing corners, half their distances and the centres' distance, and eax = 1. */
STANDIN_CODE int32_t cars_hull_test(uint32_t a, uint32_t b, uint32_t contact, uint32_t ecx) {
  (void)ecx;
  uint32_t ha = U32(a, OBJECT_HULL), hb = U32(b, OBJECT_HULL);
  int32_t reach_limit = wadd(I32(ha, HULL_RADIUS), I32(hb, HULL_RADIUS));
  const vec3 *pa = VEC(a, OBJECT_POSITION), *pb = VEC(b, OBJECT_POSITION);
  for (int k = 0; k < 3; k++)
    if (iabs(wsub(comp(pb, k), comp(pa, k))) > reach_limit) return 0;
  vec3 ca = world_centre(a, ha), cb = world_centre(b, hb);
  int32_t distance = POD_CALL2(FN_CENTRE_DISTANCE, ADDR(&ca), ADDR(&cb));
  if (distance > reach_limit) return 0;
  vec3 n;
  POD_CALL3(FN_NORMAL, ADDR(&ca), ADDR(&cb), ADDR(&n));
  int32_t dots_a[3], dots_b[3], reach = 0;
  for (int k = 0; k < 3; k++) {
    vec3 axis = object_axis(a, k);
    dots_a[k] = dot16(&n, &axis);
    reach = wadd(reach, mul16(iabs(dots_a[k]), I32(ha, HULL_HALF + 4 * k)));
  }
  for (int k = 0; k < 3; k++) {
    vec3 axis = object_axis(b, k);
    dots_b[k] = dot16(&n, &axis);
    reach = wadd(reach, mul16(iabs(dots_b[k]), I32(hb, HULL_HALF + 4 * k)));
  }
  int32_t overlap = wsub(reach, distance);
  if (overlap <= 0) return 0;
  vec3 corner_a = facing_corner(a, ha, ca, dots_a, +1), corner_b = facing_corner(b, hb, cb, dots_b, -1);
  vec3 point, spread;
  for (int k = 0; k < 3; k++) {
    int32_t ea = comp(&corner_a, k), eb = comp(&corner_b, k);
    int32_t mid = wadd(ea, eb) >> 1, half = iabs(wsub(ea, eb)) >> 1;
    if (k == 0) point.x = mid, spread.x = half;
    else if (k == 1) point.y = mid, spread.y = half;
    else point.z = mid, spread.z = half;
  }
  *VEC(contact, CONTACT_NORMAL) = n;
  I32(contact, CONTACT_OVERLAP) = overlap;
  *VEC(contact, CONTACT_POINT) = point;
  *VEC(contact, CONTACT_SPREAD) = spread;
  I32(contact, CONTACT_DISTANCE) = distance;
  return 1;
}

/* 0x4209c8 cars::mark_parts(eax = object, edx = car, ebx = contact): the mask of the object's parts
 * near the contact (bit i = part i). In the object's frame, a part lies at its offset (+0x98; the
 * wheels, parts 6 to 9, at their wheel point, F092) plus its hull's centre; it is near when on each
 * axis the contact is within its half size plus the contact's largest spread. */
STANDIN_CODE int32_t cars_mark_parts(uint32_t obj, uint32_t car, uint32_t contact, uint32_t ecx) {
  (void)ecx;
  const vec3 *pos = VEC(obj, OBJECT_POSITION);
  const vec3 *spread = VEC(contact, CONTACT_SPREAD);
  int32_t slack = spread->x;
  if (spread->y > slack) slack = spread->y;
  if (spread->z > slack) slack = spread->z;
  vec3 axes[3], d;
  int32_t q[3];
  vsub(&d, VEC(contact, CONTACT_POINT), pos);
  for (int k = 0; k < 3; k++) {
    axes[k] = object_axis(obj, k);
    q[k] = dot16(&d, &axes[k]);
  }
  int32_t count = I32(obj, OBJECT_PART_COUNT);
  uint32_t list = U32(obj, OBJECT_PART_LIST), mask = 0;
  for (int i = 0; i < count; i++) {
    uint32_t part = U32(list, 4 * i), hull = U32(part, PART_HULL);
    int32_t offset[3];
    int wheel = i - FIRST_WHEEL_PART;
    if (wheel >= 0 && wheel < NUM_WHEELS) {
      vec3 w;
      vsub(&w, VEC(car, CAR_POINT(wheel) + PT_POSITION), pos);
      for (int k = 0; k < 3; k++) offset[k] = dot16(&w, &axes[k]);
    } else {
      for (int k = 0; k < 3; k++) offset[k] = I32(part, PART_OFFSET + 4 * k);
    }
    int32_t place[3];
    for (int k = 0; k < 3; k++) place[k] = wadd(offset[k], I32(hull, HULL_CENTRE + 4 * k));
    int near = 1;
    for (int k = 0; k < 3 && near; k++)
      near = iabs(wsub(q[k], place[k])) <= wadd(I32(hull, HULL_HALF + 4 * k), slack);
    if (near) mask |= 1u << i;
  }
  return (int32_t)mask;
}

/* 0x420adc cars::impulse(eax = car a, edx = car b, ebx = normal): F093. The closing speed along the
 * normal (a's velocity less b's) x ((2 ma mb / (ma + mb)) >> 8) / (dt << 8), dt the frame's time;
 * 0 when the cars part. */
STANDIN_CODE int32_t cars_impulse(uint32_t a, uint32_t b, uint32_t normal, uint32_t ecx) {
  (void)ecx;
  vec3 dv;
  vsub(&dv, VEC(a, CAR_VELOCITY), VEC(b, CAR_VELOCITY));
  int32_t closing = dot16(&dv, PTR(normal));
  if (closing <= 0) return 0;
  int64_t ma = I32(a, CAR_MASS), mb = I32(b, CAR_MASS);
  if (ma + mb <= 0) return 0;
  int32_t reduced = (int32_t)(((2 * ma * mb) / (ma + mb)) >> 8);
  int32_t dt = I32(POD_FRAME, FRAME_STEP_DT);
  return qdiv(mul16(closing, reduced), (int32_t)((uint32_t)dt << 8));
}

/* 0x420b4c cars::carry(eax = car, edx = normal, ebx = impulse, ecx = contact point): F094. The
 * impulse along the car's own axis nearest the normal (the largest |n . axis|, the first on a tie,
 * turned to the normal's side) into the carried force, and r x F about the body's centre into the
 * carried torque (world axes). */
STANDIN_CODE int32_t cars_carry(uint32_t car, uint32_t normal, uint32_t impulse, uint32_t point) {
  /* forward, left and up lie one after another from +0x4a4 */
  int best = 0;
  int32_t best_dot = 0;
  for (int k = 0; k < 3; k++) {
    int32_t d = dot16(PTR(normal), VEC(car, CAR_FORWARD + 12 * k));
    if (k == 0 || iabs(d) > iabs(best_dot)) best = k, best_dot = d;
  }
  vec3 dir = *VEC(car, CAR_FORWARD + 12 * best);
  if (best_dot < 0) dir = (vec3){-dir.x, -dir.y, -dir.z};
  vec3 force, r, torque;
  scale16(&dir, (int32_t)impulse, &force);
  vadd(VEC(car, CAR_CARRIED_FORCE), VEC(car, CAR_CARRIED_FORCE), &force);
  vsub(&r, PTR(point), VEC(car, CAR_BODY_CENTRE));
  cross16(&r, &force, &torque);
  vadd(VEC(car, CAR_CARRIED_TORQUE), VEC(car, CAR_CARRIED_TORQUE), &torque);
  return 0;
}

/* 0x42127c cars::pair(eax = racer a, edx = racer b): one pair (F095-F097). The hull test, each car's
 * parts near the contact (it counts only when both have one), the impulse carried by a (back) and b
 * (along the normal), each followed by its damage; b pushed by half the overlap along the normal and a
 * back, each with its points placed again, then both drawn objects placed again (which turns the
 * wheels once more, F096); the contact sound bit. Returns the impulse (0 without a contact). */
STANDIN_CODE int32_t cars_pair(uint32_t ra, uint32_t rb, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t da = DRIVER(ra), db = DRIVER(rb), ca = CAR(ra), cb = CAR(rb);
  uint32_t oa = U32(da, DRV_OBJECT), ob = U32(db, DRV_OBJECT);
  if (oa == 0 || ob == 0) return 0;
  if (!POD_CALL3(FN_HULL_TEST, oa, ob, POD_CAR_CONTACT)) return 0;
  uint32_t parts_a = (uint32_t)POD_CALL3(FN_MARK_PARTS, oa, ca, POD_CAR_CONTACT);
  uint32_t parts_b = (uint32_t)POD_CALL3(FN_MARK_PARTS, ob, cb, POD_CAR_CONTACT);
  if (parts_a == 0 || parts_b == 0) return 0;
  uint32_t normal = POD_CAR_CONTACT + CONTACT_NORMAL, point = POD_CAR_CONTACT + CONTACT_POINT;
  int32_t impulse = POD_CALL3(FN_IMPULSE, ca, cb, normal);
  POD_CALL4(FN_CARRY, ca, normal, (uint32_t)-impulse, point);
  POD_CALL3(FN_DAMAGE_HIT, ca, parts_a, (uint32_t)impulse);
  POD_CALL4(FN_CARRY, cb, normal, (uint32_t)impulse, point);
  POD_CALL3(FN_DAMAGE_HIT, cb, parts_b, (uint32_t)impulse);

  vec3 push;
  scale16(PTR(normal), I32(POD_CAR_CONTACT, CONTACT_OVERLAP) >> 1, &push);
  vadd(VEC(cb, CAR_BODY_CENTRE), VEC(cb, CAR_BODY_CENTRE), &push);
  POD_CALL1(FN_PLACE_POINTS, cb);
  vsub(VEC(ca, CAR_BODY_CENTRE), VEC(ca, CAR_BODY_CENTRE), &push);
  POD_CALL1(FN_PLACE_POINTS, ca);
  POD_CALL2(FN_POSE, cb, db);
  POD_CALL2(FN_POSE, ca, da);

  int has_a = (U8(ca, CAR_SOUND_STATE) & SOUND_CONTACT) != 0, has_b = (U8(cb, CAR_SOUND_STATE) & SOUND_CONTACT) != 0;
  if (impulse > CONTACT_LOUD) {
    if (!has_a && !has_b) {
      U8(ca, CAR_SOUND_STATE) |= SOUND_CONTACT;
      U8(cb, CAR_SOUND_STATE) |= SOUND_CONTACT;
      POD_CALL2(FN_SOUND, ca, SOUND_SLOT_CONTACT);
    }
  } else if (has_a && has_b) {
    U8(ca, CAR_SOUND_STATE) &= (uint8_t)~SOUND_CONTACT;
    U8(cb, CAR_SOUND_STATE) &= (uint8_t)~SOUND_CONTACT;
  }
  return impulse;
}

/* 0x42196c cars::collisions(): every pair of racers once, in order (F088): (0,1), (0,2) ... (6,7).
 * The racers: humans + computers ([0x61d5bc] + [0x61d5c0]). Then the props (port/CHOICES.md "Props",
 * "The props' part of the pass"): every racer against every prop, then each hit prop, in
 * the list's order, knocks the others and moves; a prop removed closes the list up and the loop goes
 * on past the prop moved into its place (F121). Without props only the count is read. */
STANDIN_CODE int32_t cars_collisions(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)eax, (void)edx, (void)ebx, (void)ecx;
  int32_t racers = I32(POD_HUMAN_COUNT, 0) + I32(POD_COMPUTER_COUNT, 0);
  for (int32_t a = 0; a < racers; a++)
    for (int32_t b = a + 1; b < racers; b++) POD_CALL2(FN_PAIR, (uint32_t)a, (uint32_t)b);
  int32_t props = I32(POD_PROP_COUNT, 0);
  for (int32_t a = 0; a < racers; a++)
    for (int32_t p = 0; p < props; p++) POD_CALL2(FN_PROP_CAR_HIT, (uint32_t)a, (uint32_t)p);
  for (int32_t p = 0; p < I32(POD_PROP_COUNT, 0); p++) {
    if (U8(POD_PROP_HIT, p) == 0) continue;
    POD_CALL1(FN_PROP_KNOCK, (uint32_t)p);
    POD_CALL1(FN_PROP_MOTION, (uint32_t)p);
  }
  return 0;
}
