/* The world: the level as the EXE ships it, and one update of every entity. */
#include <windows.h>

#include "crawl.h"

#define W TILE_WALL
#define o TILE_FLOOR
#define S TILE_WATER
#define L TILE_LAVA
#define ALIVE ENT_ALIVE

World g_world = {
    .map = {.width = MAP_W, .height = MAP_H, .tile_shift = 16,
            .tiles = {
                W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W,
                W, o, o, o, o, o, o, o, o, o, o, o, o, o, o, W,
                W, o, o, o, o, o, S, S, o, o, o, o, o, o, o, W,
                W, o, o, L, o, o, S, S, o, o, o, W, o, o, o, W,
                W, o, o, L, o, o, o, o, o, o, o, W, o, o, o, W,
                W, o, o, o, o, o, o, o, o, o, o, W, o, o, o, W,
                W, o, o, o, o, W, W, W, W, o, o, o, o, L, o, W,
                W, o, o, o, o, o, o, o, o, o, o, o, o, L, o, W,
                W, o, S, S, o, o, o, o, o, o, o, o, o, o, o, W,
                W, o, S, S, o, o, o, L, L, o, o, o, o, o, o, W,
                W, o, o, o, o, o, o, o, o, o, o, o, o, o, o, W,
                W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W,
            }},
    .tick = 0,
    .entity_count = 6,
    .entities = {
        {&walker_vtbl, KIND_WALKER, ALIVE, 0, {1.5f, 1.5f}, {2.0f, 0.0f}, 0.0f, 60, 0x10000, 0, 0.0},
        {&walker_vtbl, KIND_WALKER, ALIVE, 0, {4.25f, 7.5f}, {0.0f, -1.5f}, -HALF_PI_F, 40, 0x8000, 0, 0.0},
        {&walker_vtbl, KIND_WALKER, ALIVE, 0, {12.5f, 2.5f}, {-1.25f, 0.0f}, PI_F, 25, 0x18000, 0, 0.0},
        {&walker_vtbl, KIND_WALKER, ALIVE, 0, {9.75f, 9.5f}, {0.0f, 1.75f}, HALF_PI_F, 80, 0xc000, 0, 0.0},
        {&turret_vtbl, KIND_TURRET, ALIVE, 0, {8.5f, 5.5f}, {0.0f, 0.0f}, 0.0f, 200, 0x4000, 0, 0.0},
        {&turret_vtbl, KIND_TURRET, ALIVE, 0, {3.5f, 9.5f}, {0.0f, 0.0f}, 2.0f, 200, 0x4000, 0, 0.0},
    }};

/* One update: every live entity thinks (through its table), stamped with the tick KERNEL32 gives.
 * Returns how many are alive afterwards. */
int CRAWL_CDECL world_update(World* w, float dt) {
  const uint32_t now = GetTickCount();
  const int n = w->entity_count < MAX_ENTITIES ? w->entity_count : MAX_ENTITIES;
  int alive = 0;
  w->tick = now;
  for (int i = 0; i < n; ++i) {
    Entity* e = &w->entities[i];
    if (!(e->flags & ENT_ALIVE)) continue;
    e->vtbl->think(e, w, dt);
    e->last_tick = now;
    alive += e->flags & ENT_ALIVE;
  }
  return alive;
}
