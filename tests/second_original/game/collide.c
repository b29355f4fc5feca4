/* What an entity may not walk into. */
#include "crawl.h"

/* Whether the tile under a 16.16 world position stops a walker: wall or water. */
int CRAWL_STDCALL tile_blocked(const TileMap* map, int32_t x_fx, int32_t y_fx) {
  const int t = tile_at(map, x_fx >> map->tile_shift, y_fx >> map->tile_shift);
  return t == TILE_WALL || t == TILE_WATER;
}
