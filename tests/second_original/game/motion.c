/* Moving and turning. */
#include <math.h>

#include "crawl.h"

/* Turns the entity's heading toward `target` by at most `max_step` radians, the short way round. */
void CRAWL_STDCALL entity_turn_toward(Entity* e, float target, float max_step) {
  float diff = angle_wrap(target - e->heading);
  if (diff > max_step)
    diff = max_step;
  else if (diff < -max_step)
    diff = -max_step;
  e->heading = angle_wrap(e->heading + diff);
}

/* One step of the movement integrator: the position moves by vel x dt unless the tile there blocks
 * (then the entity stays, is marked blocked, and 0 is returned). The distance moved is added to the
 * odometer in double. */
int CRAWL_FASTCALL entity_move(World* w, Entity* e, float dt) {
  const float nx = e->pos.x + e->vel.x * dt;
  const float ny = e->pos.y + e->vel.y * dt;
  if (tile_blocked(&w->map, (int32_t)(nx * 65536.0f), (int32_t)(ny * 65536.0f))) {
    e->flags |= ENT_BLOCKED;
    return 0;
  }
  const double dx = nx - e->pos.x;
  const double dy = ny - e->pos.y;
  e->odometer += sqrt(dx * dx + dy * dy);
  e->pos.x = nx;
  e->pos.y = ny;
  e->flags &= (uint8_t)~ENT_BLOCKED;
  return 1;
}
