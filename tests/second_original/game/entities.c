/* The two kinds of entity and their function tables. */
#include "crawl.h"

/* Takes a hit of `amount` scaled by the entity's armour (at least 1); returns 1 when it kills. */
int CRAWL_CDECL entity_damage(Entity* e, int amount) {
  int taken = fx_mul((int32_t)((uint32_t)amount << 16), e->armor_fx) >> 16;
  if (taken < 1) taken = 1;
  e->health -= taken;
  if (e->health > 0) return 0;
  e->health = 0;
  e->flags = (uint8_t)((e->flags & ~ENT_ALIVE) | ENT_DIED);
  return 1;
}

/* A walker walks straight on; blocked, it turns a quarter to the left. Lava under it hurts. */
void CRAWL_CDECL walker_think(Entity* e, World* w, float dt) {
  if (!entity_move(w, e, dt)) {
    const float vx = e->vel.x;
    e->vel.x = -e->vel.y;
    e->vel.y = vx;
    entity_turn_toward(e, e->heading + HALF_PI_F, HALF_PI_F);
    return;
  }
  if (tile_at(&w->map, (int)e->pos.x, (int)e->pos.y) == TILE_LAVA) e->vtbl->damage(e, 7);
}

/* A turret sweeps round and hits the nearest live walker within 4 units, harder the nearer it is. */
void CRAWL_CDECL turret_think(Entity* e, World* w, float dt) {
  Entity* target = 0;
  double best = 4.0;
  for (int i = 0; i < w->entity_count && i < MAX_ENTITIES; ++i) {
    Entity* o = &w->entities[i];
    if (o->kind != KIND_WALKER || !(o->flags & ENT_ALIVE)) continue;
    const double d = entity_distance(e, o);
    if (d < best) {
      best = d;
      target = o;
    }
  }
  entity_turn_toward(e, e->heading + 1.0f, 0.75f * dt);
  if (target) target->vtbl->damage(target, 2 + (int)(4.0 / (best + 0.5)));
}

const EntityVtbl walker_vtbl = {walker_think, entity_damage};
const EntityVtbl turret_vtbl = {turret_think, entity_damage};
