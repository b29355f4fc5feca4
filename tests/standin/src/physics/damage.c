/* Damage (port/CHOICES.md "Car against car and damage"): damage::hit (0x420e54) after a contact impulse or a wall impact, the part
 * chain's macro (0x4545a8), and the wheels a broken part hurts (0x415318, 0x415270, 0x4152ac). Every
 * rule the documents leave open: port/CHOICES.md, "Car against car and damage" (argument lists, the modes, what counts as
 * a break, the chain walk, the 16.16 constants). */
#include "objects.h"

#define WHEEL_GRIP_KEPT 0xf333   /* 0.95 */
#define WHEEL_ROLLING   0xf428f  /* 15.26 */
#define AXLE_GRIP_KEPT  0xf852   /* 0.97 */
#define AXLE_ROLLING    0x7a148  /* 7.63 */

/* The drawn object of a race car: its driver's +4 (the same racer number). */
STANDIN_INLINE uint32_t car_object(uint32_t car) {
  uint32_t racer = (car - POD_CARS) / CAR_SIZE;
  return U32(DRIVER(racer), DRV_OBJECT);
}

/* 0x420e54 damage::hit(eax = car, edx = parts, ebx = strength): only when the option [0x63334c] is on
 * and [0x633314] is 0 (F098), and half the strength reaches 50,000 (F102). Half the strength is shared
 * by idiv among the body parts: those of the six in `parts` (option 2), or all six (any other option
 * value). A part that reaches 0 breaks: without a chain it stays at 0; with one the chain runs and the
 * part's new health is its template's plus the (negative) excess, at least 0 (F103). Each break hurts
 * the part's wheels (F105). A part already at 0 stays at 0 and breaks no more. */
STANDIN_CODE int32_t damage_hit(uint32_t car, uint32_t parts, uint32_t strength, uint32_t ecx) {
  (void)ecx;
  int32_t option = I32(POD_DAMAGE_OPTION, 0);
  if (option == 0) return 0;
  if (I32(POD_DAMAGE_VETO, 0) != 0) return 0;
  int32_t half = (int32_t)strength >> 1;
  if (half < DAMAGE_FROM) return 0;
  uint32_t obj = car_object(car);
  if (obj == 0) return 0;
  uint32_t chosen = option == 2 ? parts & 0x3f : 0x3f;
  int n = __builtin_popcount(chosen);
  if (n == 0) return 0;
  int32_t share = half / n;
  uint32_t list = U32(obj, OBJECT_PART_LIST);
  for (int i = 0; i < NUM_BODY_PARTS; i++) {
    if (!(chosen & (1u << i))) continue;
    uint32_t part = U32(list, 4 * i);
    int32_t old = I32(part, PART_HEALTH), h = old - share;
    if (h > 0) {
      I32(part, PART_HEALTH) = h;
      continue;
    }
    I32(part, PART_HEALTH) = 0;
    if (old <= 0) continue;  /* already broken */
    uint32_t e = U32(part, PART_CHAIN);
    if (e) {
      while (e) {
        uint32_t next = U32(e, CHAIN_NEXT);
        POD_CALL_INDIRECT2(e + CHAIN_MACRO, part, U32(e, CHAIN_ARGUMENT));
        e = next;
      }
      int32_t now = I32(part, PART_HEALTH) + h;
      I32(part, PART_HEALTH) = now > 0 ? now : 0;
    }
    POD_CALL2(FN_WHEELS_HURT, car, 1u << i);
  }
  return 0;
}

/* 0x4545a8 damage::to_template(eax = part, edx = template): the only macro of the part chains. The
 * part becomes its template: hull, chain and health; its offsets and placement stay (F104). The
 * display's picture swap (the same macro on the race display's car) is not in the stand-in. */
STANDIN_CODE int32_t damage_to_template(uint32_t part, uint32_t template, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  U32(part, PART_HULL) = U32(template, PART_HULL);
  U32(part, PART_CHAIN) = U32(template, PART_CHAIN);
  I32(part, PART_HEALTH) = I32(template, PART_HEALTH);
  return 0;
}

/* 0x415270 damage::wheel(eax = car, edx = wheel): grips x 0.95, rolling resistance + radius^2 x 15.26. */
STANDIN_CODE int32_t damage_wheel(uint32_t car, uint32_t wheel, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  uint32_t p = car + CAR_POINT(wheel);
  I32(p, PT_SIDE_GRIP) = mul16(I32(p, PT_SIDE_GRIP), WHEEL_GRIP_KEPT);
  I32(p, PT_TRACTION) = mul16(I32(p, PT_TRACTION), WHEEL_GRIP_KEPT);
  int32_t r = I32(p, PT_RADIUS);
  I32(p, PT_ROLLING_RESISTANCE) += mul16(mul16(r, r), WHEEL_ROLLING);
  return 0;
}

/* 0x4152ac damage::axle(eax = car, edx = first wheel): wheels first and first + 1 (F105's pairs 0 and 1,
 * 2 and 3; C18: a side rather than an axle, by 003's numbering), grips x 0.97, each rolling resistance
 * + radius^2 x 7.63. */
STANDIN_CODE int32_t damage_axle(uint32_t car, uint32_t first, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  for (uint32_t w = first; w < first + 2; w++) {
    uint32_t p = car + CAR_POINT(w);
    I32(p, PT_SIDE_GRIP) = mul16(I32(p, PT_SIDE_GRIP), AXLE_GRIP_KEPT);
    I32(p, PT_TRACTION) = mul16(I32(p, PT_TRACTION), AXLE_GRIP_KEPT);
    int32_t r = I32(p, PT_RADIUS);
    I32(p, PT_ROLLING_RESISTANCE) += mul16(mul16(r, r), AXLE_ROLLING);
  }
  return 0;
}

/* 0x415318 damage::wheels_hurt(eax = car, edx = part bits): F105, every set bit in ascending order. */
STANDIN_CODE int32_t damage_wheels_hurt(uint32_t car, uint32_t bits, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  if (bits & 0x01) POD_CALL2(FN_WHEEL_HURT, car, 1);
  if (bits & 0x02) POD_CALL2(FN_WHEEL_HURT, car, 3);
  if (bits & 0x04) POD_CALL2(FN_AXLE_HURT, car, 0);
  if (bits & 0x08) POD_CALL2(FN_AXLE_HURT, car, 2);
  if (bits & 0x10) POD_CALL2(FN_WHEEL_HURT, car, 0);
  if (bits & 0x20) POD_CALL2(FN_WHEEL_HURT, car, 2);
  return 0;
}
