/* Hulls (port/CHOICES.md "Car against car and damage"): the vertices' box (0x4713c8, F147), the
 * square root (0x4d3e90) and the radius (0x423b48, F148), one part's hull (0x420300) and "Prisme"
 * (0x4203c8), which builds every part's hull and the whole car's. Rules the documents leave open:
 * port/CHOICES.md, "Car against car and damage". */
#include "objects.h"

#define BOX_MIN_START 0x7fffffff
#define BOX_MAX_START ((int32_t)0x80000001)

/* The box accumulated so far: min and max per axis. */
typedef struct box { int32_t min[3], max[3]; } box;

STANDIN_INLINE void box_start(box *b) {
  for (int k = 0; k < 3; k++) b->min[k] = BOX_MIN_START, b->max[k] = BOX_MAX_START;
}

STANDIN_INLINE void box_add(box *b, uint32_t vertices, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    const int32_t *v = PTR(vertices + 12 * i);
    for (int k = 0; k < 3; k++) {
      if (v[k] < b->min[k]) b->min[k] = v[k];
      if (v[k] > b->max[k]) b->max[k] = v[k];
    }
  }
}

/* half sizes (max - min) >> 1 and centre (max + min) >> 1, 32-bit wrapping, arithmetic shifts */
STANDIN_INLINE void box_store(const box *b, uint32_t hull) {
  int32_t *half = PTR(hull + HULL_HALF), *centre = PTR(hull + HULL_CENTRE);
  for (int k = 0; k < 3; k++) {
    half[k] = (int32_t)((uint32_t)b->max[k] - (uint32_t)b->min[k]) >> 1;
    centre[k] = (int32_t)((uint32_t)b->max[k] + (uint32_t)b->min[k]) >> 1;
  }
}

/* 0x4713c8 world::hull_box(eax = vertices, edx = count, ebx = hull): the box of `count` vec3
 * vertices into the hull's half sizes and centre; the radius is left alone. */
STANDIN_CODE int32_t world_hull_box(uint32_t vertices, uint32_t count, uint32_t hull, uint32_t ecx) {
  (void)ecx;
  box b;
  box_start(&b);
  box_add(&b, vertices, count);
  box_store(&b, hull);
  return 0;
}

/* 0x4d3e90 math::sqrt(eax = low, edx = high): the square root of the unsigned 64-bit edx:eax,
 * rounded down, bit by bit from the top. */
STANDIN_CODE int32_t math_sqrt(uint32_t low, uint32_t high, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint64_t n = ((uint64_t)high << 32) | low;
  uint32_t root = 0;
  for (uint32_t bit = 1u << 31; bit; bit >>= 1) {
    uint32_t trial = root | bit;
    if ((uint64_t)trial * trial <= n) root = trial;
  }
  return (int32_t)root;
}

/* 0x423b48 world::hull_radius(eax = hull): sqrt(x^2 + y^2) of the x and y half sizes (F148: z not
 * included), the squares and their sum in 64 bits; stored at +0xc and returned. */
STANDIN_CODE int32_t world_hull_radius(uint32_t hull, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int64_t x = I32(hull, HULL_HALF), y = I32(hull, HULL_HALF + 4);
  uint64_t sum = (uint64_t)(x * x) + (uint64_t)(y * y);
  int32_t r = POD_CALL2(FN_SQRT, (uint32_t)sum, (uint32_t)(sum >> 32));
  I32(hull, HULL_RADIUS) = r;
  return r;
}

/* 0x420300 world::part_hull(eax = part): the part's hull (+0x34) from its own vertices. */
STANDIN_CODE int32_t world_part_hull(uint32_t part, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  uint32_t hull = U32(part, PART_HULL);
  POD_CALL3(FN_HULL_BOX, U32(part, PART_VERTICES), U32(part, PART_VERTEX_COUNT), hull);
  POD_CALL1(FN_HULL_RADIUS, hull);
  return 0;
}

/* 0x4203c8 world::prisme(eax = object): "Prisme": each of the object's parts (its count at +0, ten)
 * gets a new hull from its own vertices, then the whole car's hull (+0x44) is the box of all the
 * parts' vertices (no offsets). */
STANDIN_CODE int32_t world_prisme(uint32_t object, uint32_t edx, uint32_t ebx, uint32_t ecx) {
  (void)edx, (void)ebx, (void)ecx;
  int32_t count = I32(object, OBJECT_PART_COUNT);
  uint32_t list = U32(object, OBJECT_PART_LIST);
  for (int i = 0; i < count; i++) POD_CALL1(FN_PART_HULL, U32(list, 4 * i));
  box b;
  box_start(&b);
  for (int i = 0; i < count; i++) {
    uint32_t part = U32(list, 4 * i);
    box_add(&b, U32(part, PART_VERTICES), U32(part, PART_VERTEX_COUNT));
  }
  uint32_t hull = U32(object, OBJECT_HULL);
  box_store(&b, hull);
  POD_CALL1(FN_HULL_RADIUS, hull);
  return 0;
}
