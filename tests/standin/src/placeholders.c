/* Weak placeholder bodies for the car physics (src/physics/): each function of functions.def has
 * one, so the binary always links and every function sits at its POD address. A placeholder that is
 * called traps (ud2), except the car step and the car set-up, which do something trivial so that the
 * race, the step log and the snapshot can be tested before the physics exists. The physics' own
 * definitions (same names, not weak) replace them at link time. */
#include <stdint.h>

#include "internal.h"
#include "pod_call.h"
#include "standin_math.h"

/* The placeholders of car against car, damage and the props sit with their bodies in .pod.code (STANDIN_CODE, standin.h). */
#define TRAP_OWN(name)                                                                                  \
  __attribute__((weak, section(".pod.code"))) int32_t name(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) { \
    (void)eax, (void)edx, (void)ebx, (void)ecx;                                                          \
    __builtin_trap();                                                                                    \
  }

#define TRAP(name)                                                                   \
  __attribute__((weak)) int32_t name(uint32_t eax, uint32_t edx, uint32_t ebx, uint32_t ecx) { \
    (void)eax, (void)edx, (void)ebx, (void)ecx;                                      \
    __builtin_trap();                                                                \
  }

TRAP(catch_up)
TRAP(drive_automatic)
TRAP(drive_gears)
TRAP(frames_wheel_axes)
TRAP(frames_turn)
TRAP(drive_engine)
TRAP(drive_torque)
TRAP(drive_brakes)
TRAP(forces_air)
TRAP(forces_grip)
TRAP(forces_wheel_drive)
TRAP(suspension_springs)
TRAP(tyres_tyres)
TRAP(body_integrate)
TRAP(suspension_substeps)
TRAP(suspension_place_points)
TRAP(collide_track)
TRAP(collide_touch_face)
TRAP(collide_chassis_searches)
TRAP(collide_over_quad)
TRAP(collide_over_triangle)
TRAP(drive_wheel_spin)
TRAP(step_skid_smoke)
TRAP(collide_wall_depth)
TRAP(collide_push_faces)
TRAP(collide_sector_walls)
TRAP(body_impacts)
TRAP(suspension_travel)
TRAP(body_push_out)
TRAP(race_beacon_test)
TRAP(step_stuck)
TRAP(step_upside_down)
TRAP(putback_put_back)
TRAP(car_reset)
TRAP(putback_clear_pose)
TRAP(putback_place)
TRAP(surface_defaults)
TRAP(quad_halves)
TRAP(grid_slot)
TRAP(settle)
TRAP(world_sector_near)
TRAP(world_sector_any)
TRAP(paths_heading)
TRAP(paths_next_point)
TRAP(step_pose)
TRAP(step_wheel_roll)
TRAP(racer_step)
TRAP(math_qdiv)
TRAP_OWN(world_hull_box)
TRAP_OWN(math_sqrt)
TRAP_OWN(world_hull_radius)
TRAP_OWN(world_part_hull)
TRAP_OWN(world_prisme)
TRAP_OWN(cars_centre_distance)
TRAP_OWN(cars_normal)
TRAP_OWN(cars_hull_test)
TRAP_OWN(cars_mark_parts)
TRAP_OWN(cars_impulse)
TRAP_OWN(cars_carry)
TRAP_OWN(cars_pair)
TRAP_OWN(cars_collisions)
TRAP_OWN(damage_hit)
TRAP_OWN(damage_wheels_hurt)
TRAP_OWN(damage_wheel)
TRAP_OWN(damage_axle)
TRAP_OWN(damage_to_template)
TRAP_OWN(props_kind)
TRAP_OWN(paths_place)
TRAP_OWN(paths_track)
TRAP_OWN(paths_track_node)
TRAP_OWN(paths_lane_target)
TRAP_OWN(catch_up_target)
TRAP_OWN(props_build)
TRAP_OWN(props_centre)
TRAP_OWN(props_faces)
TRAP_OWN(props_impulse)
TRAP_OWN(props_car_hit)
TRAP_OWN(props_knock)
TRAP_OWN(props_motion)
TRAP_OWN(props_remove)

/* The placeholder car set-up: the body one unit above the ground point, the points at fixed offsets. */
static void placeholder_points(uint32_t car) {
  static const fx offsets[5][3] = {{0x13333, 0xcccc, -0x8000}, {-0x13333, 0xcccc, -0x8000},
                                   {0x13333, -0xcccc, -0x8000}, {-0x13333, -0xcccc, -0x8000},
                                   {0, 0, 0}};
  const vec3 *c = VEC(car, CAR_BODY_CENTRE), *f = VEC(car, CAR_FORWARD), *l = VEC(car, CAR_LEFT),
             *u = VEC(car, CAR_UP);
  for (int i = 0; i < 5; ++i) {
    vec3 *p = VEC(car, CAR_POINT(i) + PT_POSITION);
    p->x = c->x + mul16(offsets[i][0], f->x) + mul16(offsets[i][1], l->x) + mul16(offsets[i][2], u->x);
    p->y = c->y + mul16(offsets[i][0], f->y) + mul16(offsets[i][1], l->y) + mul16(offsets[i][2], u->y);
    p->z = c->z + mul16(offsets[i][0], f->z) + mul16(offsets[i][1], l->z) + mul16(offsets[i][2], u->z);
    *VEC(car, CAR_POINT(i) + PT_VELOCITY) = *VEC(car, CAR_VELOCITY);
  }
}

__attribute__((weak)) void physics_car_setup(uint32_t car, uint32_t driver, int racer, uint32_t start) {
  (void)driver, (void)racer;
  const vec3 *at = VEC(start, GRID_POSITION), *heading = VEC(start, GRID_HEADING);
  *VEC(car, CAR_BODY_CENTRE) = (vec3){at->x, at->y, at->z + FX_ONE};
  *VEC(car, CAR_FORWARD) = *heading;
  *VEC(car, CAR_LEFT) = (vec3){-heading->y, heading->x, 0};
  *VEC(car, CAR_UP) = (vec3){0, 0, FX_ONE};
  I32(car, CAR_MASS) = 1000 * FX_ONE;
  placeholder_points(car);
}

/* The placeholder car step: the controller, the CTRL hook, then a point mass driven along its forward
 * axis and turned by the steering, through the arithmetic layer and the set-up needs (sound,
 * memmove, smoke and rand) so that every piece of the infrastructure runs. */
__attribute__((weak)) int32_t step_step(uint32_t car, uint32_t driver, uint32_t ebx, uint32_t ecx) {
  (void)ebx, (void)ecx;
  int racer = I32(driver, DRV_RACER);
  POD_CALL_INDIRECT2(driver + DRV_CONTROLLER, driver, car);
  POD_CALL1(FN_HOOK_CTRL, racer);

  fx dt = I32(POD_FRAME, FRAME_DT);
  int held = I32(POD_RACE_BLOCK, RACE_PHASE) != 0;
  vec3 *fwd = VEC(car, CAR_FORWARD), *vel = VEC(car, CAR_VELOCITY), *centre = VEC(car, CAR_BODY_CENTRE);
  fx speed = POD_CALL2(FN_DOT16, ADDR(vel), ADDR(fwd));
  if (!held) speed += mul16(mul16(I32(driver, DRV_THROTTLE), 8 * FX_ONE), dt);
  speed -= mul16(mul16(I32(driver, DRV_BRAKE), 12 * FX_ONE), dt);
  if (speed < 0 || held) speed = 0;

  /* turn: yaw rate = steer x speed / 10 (rad/s) */
  fx yaw = mul16(mul16(I32(driver, DRV_STEER), div16(speed, 10 * FX_ONE)), dt);
  fx c = POD_CALL1(FN_COS16, yaw), s = POD_CALL1(FN_SIN16, yaw);
  vec3 f = {mul16(fwd->x, c) - mul16(fwd->y, s), mul16(fwd->x, s) + mul16(fwd->y, c), 0};
  fx len = POD_CALL1(FN_LENGTH16, ADDR(&f));
  f.x = div16(f.x, len);
  f.y = div16(f.y, len);
  *fwd = f;
  *VEC(car, CAR_LEFT) = (vec3){-f.y, f.x, 0};
  POD_CALL3(FN_SCALE16, ADDR(fwd), speed, ADDR(vel));
  vec3 move;
  POD_CALL3(FN_SCALE16, ADDR(vel), dt, ADDR(&move));
  centre->x += move.x;
  centre->y += move.y;
  placeholder_points(car);
  /* the chassis point's last sector word keeps its sector (a block copy through memmove) */
  POD_CALL3(FN_MEMMOVE, car + CAR_CHASSIS + PT_LAST_SECTOR, car + CAR_CHASSIS + PT_SECTOR, 4);

  if (I32(driver, DRV_BRAKE) && speed > 0) POD_CALL2(FN_SMOKE_EMIT, car + CAR_POINT(0) + PT_POSITION, speed);
  if ((I32(POD_FRAME, FRAME_STEP) % 16) == racer) POD_CALL2(FN_SOUND, car, 1);
  U8(car, CAR_SOUND_STATE) = (uint8_t)(speed > 10 * FX_ONE ? 2 : 0);
  return 0;
}
