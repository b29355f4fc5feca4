/* The tile map. */
#include "crawl.h"

/* The tile at (tx, ty); everything outside the map's width and height is wall (a negative index too:
 * it is compared unsigned). */
int CRAWL_FASTCALL tile_at(const TileMap* map, int tx, int ty) {
  if ((unsigned)tx >= (unsigned)map->width || (unsigned)ty >= (unsigned)map->height) return TILE_WALL;
  return map->tiles[ty * MAP_W + tx];
}
