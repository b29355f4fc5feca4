/* The stand-in's drawn-object parts (chosen data: port/CHOICES.md, "Car against car and damage",
 * "Records"): for each racer with a drawn object, 22 parts: body sets 0, 1 and 2 of six (set 1 and 2
 * the damaged versions: lower and shorter), then the four wheels. The object's +0 counts ten parts and
 * +4 lists body set 0 then the wheels. Sets 0 and 1 have a chain of one element, the part-chain
 * macro with the same part of the next set; set 2 and the wheels have none. Each part's hull comes
 * from its eight vertices through world::part_hull (0x420300), as POD's reader builds it. The whole
 * car's hull (the object's +0x44) is the race's and stays as it is: the recorded race reads it. */
#include "objects.h"

/* Body parts by bit (body.c's numbering, F105): part 0 rear left (1), 1 rear right (2), 2 middle left
 * (4), 3 middle right (8), 4 front left (0x10), 5 front right (0x20). Boxes in the object's frame
 * (x forward, y left, z up), inside the whole car's 2.0 x 1.2 x 0.6 half sizes. */
#define X_REAR   (-0x20000)  /* -2.0 */
#define X_MID_LO (-0xb333)   /* -0.7 */
#define X_MID_HI 0xb333      /* 0.7 */
#define X_FRONT  0x20000     /* 2.0 */
#define Y_SIDE   0x13333     /* 1.2 */
#define Z_LOW    (-0x9999)   /* -0.6 */
#define Z_HIGH   0x9999      /* 0.6 */
#define SET_LOWER 0x3333     /* each damaged set's roof 0.2 lower */
#define SET_SHORTER 0x1999   /* and its outer end 0.1 shorter */
#define WHEEL_HALF_X 0x599a  /* 0.35 */
#define WHEEL_HALF_Y 0x2666  /* 0.15 */
#define WHEEL_HALF_Z 0x599a  /* 0.35 */

STANDIN_INLINE void box_vertices(uint32_t at, const int32_t lo[3], const int32_t hi[3]) {
  for (int i = 0; i < 8; i++)
    *VEC(at + 12u * (uint32_t)i, 0) = (vec3){(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]};
}

STANDIN_CODE void parts_setup(uint32_t object, int racer) {
  uint32_t first = (uint32_t)racer * PARTS_PER_RACER;
  for (int j = 0; j < PARTS_PER_RACER; j++) {
    uint32_t k = first + (uint32_t)j;
    uint32_t part = POD_PARTS + k * PART_SIZE, hull = POD_PART_HULLS + k * HULL_SIZE;
    uint32_t vertices = POD_PART_VERTICES + k * PART_VERTEX_STRIDE;
    int32_t lo[3], hi[3];
    if (j < 18) {
      int set = j / 6, bit = j % 6, row = bit / 2, left = (bit % 2) == 0;
      lo[0] = row == 0 ? X_REAR + set * SET_SHORTER : row == 1 ? X_MID_LO : X_MID_HI;
      hi[0] = row == 0 ? X_MID_LO : row == 1 ? X_MID_HI : X_FRONT - set * SET_SHORTER;
      lo[1] = left ? 0 : -Y_SIDE;
      hi[1] = left ? Y_SIDE : 0;
      lo[2] = Z_LOW;
      hi[2] = Z_HIGH - set * SET_LOWER;
    } else {
      lo[0] = -WHEEL_HALF_X, hi[0] = WHEEL_HALF_X;
      lo[1] = -WHEEL_HALF_Y, hi[1] = WHEEL_HALF_Y;
      lo[2] = -WHEEL_HALF_Z, hi[2] = WHEEL_HALF_Z;
    }
    box_vertices(vertices, lo, hi);
    U32(part, PART_VERTEX_COUNT) = 8;
    U32(part, PART_VERTICES) = vertices;
    U32(part, PART_HULL) = hull;
    I32(part, PART_HEALTH) = j < 18 ? HEALTH_START : 0;
    if (j < 12) {
      uint32_t e = POD_PART_CHAINS + ((uint32_t)racer * 12 + (uint32_t)j) * CHAIN_SIZE;
      U32(e, CHAIN_MACRO) = FN_TO_TEMPLATE;
      U32(e, CHAIN_ARGUMENT) = part + 6 * PART_SIZE;
      U32(e, CHAIN_NEXT) = 0;
      U32(part, PART_CHAIN) = e;
    }
    POD_CALL1(FN_PART_HULL, part);
  }
  uint32_t list = POD_PART_LISTS + (uint32_t)racer * NUM_PARTS * 4;
  for (int i = 0; i < NUM_PARTS; i++) {
    int j = i < NUM_BODY_PARTS ? i : 18 + (i - NUM_BODY_PARTS);
    U32(list, 4 * i) = POD_PARTS + (first + (uint32_t)j) * PART_SIZE;
  }
  I32(object, OBJECT_PART_COUNT) = NUM_PARTS;
  U32(object, OBJECT_PART_LIST) = list;
}
