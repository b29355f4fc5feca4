/* Crawl: a small tile-map game, the second original lockstep is tested on.
 *
 * Written the way a late-1990s Windows game was: structures laid out by hand with explicit padding
 * (as MSVC would place them), an entity's behaviour behind a table of function pointers, positions in
 * float, the map's lookups in 16.16 fixed point, three calling conventions (cdecl, stdcall, fastcall)
 * and one call to KERNEL32. Built with mingw-w64 into a PE32 .EXE (CMakeLists.txt); its functions are
 * named in ../game.toml at the addresses the build gives them.
 *
 * Floating point: every expression is evaluated in the x87's registers and rounded to its type only
 * when stored (C's FLT_EVAL_METHOD 2: the build passes -std=c11, which gives GCC's
 * -fexcess-precision=standard). main() sets the x87 to 53-bit precision first, so "evaluated in the
 * x87's registers" means "in double". */
#ifndef CRAWL_H
#define CRAWL_H

#include <stdint.h>

#define CRAWL_CDECL __attribute__((cdecl))
#define CRAWL_STDCALL __attribute__((stdcall))
#define CRAWL_FASTCALL __attribute__((fastcall))

#define MAP_W 16
#define MAP_H 12
#define MAX_ENTITIES 8

#define PI_F 3.14159265f
#define HALF_PI_F 1.57079633f

enum Tile { TILE_FLOOR = 0, TILE_WALL = 1, TILE_WATER = 2, TILE_LAVA = 3 };
enum EntityFlag { ENT_ALIVE = 0x01, ENT_BLOCKED = 0x02, ENT_DIED = 0x04 };
enum EntityKind { KIND_WALKER = 1, KIND_TURRET = 2 };

struct Entity;
struct World;

/* An entity's behaviour: both slots are cdecl. */
typedef struct EntityVtbl {
  void(CRAWL_CDECL* think)(struct Entity* self, struct World* world, float dt); /* +0x00 */
  int(CRAWL_CDECL* damage)(struct Entity* self, int amount);                    /* +0x04 */
} EntityVtbl;

typedef struct Vec2 {
  float x, y;
} Vec2;

typedef struct Entity {
  const EntityVtbl* vtbl; /* +0x00 */
  uint8_t kind;           /* +0x04 EntityKind */
  uint8_t flags;          /* +0x05 EntityFlag bits */
  uint16_t pad06;         /* +0x06 padding, written out as MSVC would leave it */
  Vec2 pos;               /* +0x08 world units: one tile is 1.0 */
  Vec2 vel;               /* +0x10 world units per second */
  float heading;          /* +0x18 radians, kept in (-pi, pi] */
  int32_t health;         /* +0x1c */
  int32_t armor_fx;       /* +0x20 16.16: the share of a hit's damage taken */
  uint32_t last_tick;     /* +0x24 GetTickCount() at its last think */
  double odometer;        /* +0x28 world units walked */
} Entity;

typedef struct TileMap {
  int32_t width, height;         /* +0x00, +0x04 tiles in use (at most MAP_W x MAP_H) */
  int32_t tile_shift;            /* +0x08 a 16.16 coordinate >> tile_shift is a tile index */
  uint8_t tiles[MAP_H * MAP_W];  /* +0x0c rows of MAP_W bytes, enum Tile */
} TileMap;

typedef struct World {
  TileMap map;                   /* +0x000 */
  uint32_t tick;                 /* +0x0cc GetTickCount() at the last update */
  int32_t entity_count;          /* +0x0d0 */
  uint32_t pad0d4;               /* +0x0d4 keeps the entities' doubles 8-aligned */
  Entity entities[MAX_ENTITIES]; /* +0x0d8 */
} World;

_Static_assert(sizeof(Entity) == 0x30, "Entity is 0x30 bytes");
_Static_assert(__builtin_offsetof(Entity, odometer) == 0x28, "odometer at +0x28");
_Static_assert(sizeof(TileMap) == 0xcc, "TileMap is 0xcc bytes");
_Static_assert(__builtin_offsetof(World, entities) == 0xd8, "entities at +0xd8");
_Static_assert(sizeof(World) == 0x258, "World is 0x258 bytes");

/* fixed.c */
int32_t CRAWL_CDECL fx_mul(int32_t a, int32_t b);
/* map.c */
int CRAWL_FASTCALL tile_at(const TileMap* map, int tx, int ty);
/* collide.c */
int CRAWL_STDCALL tile_blocked(const TileMap* map, int32_t x_fx, int32_t y_fx);
/* angle.c */
float CRAWL_CDECL angle_wrap(float a);
double CRAWL_CDECL entity_distance(const Entity* a, const Entity* b);
/* motion.c */
void CRAWL_STDCALL entity_turn_toward(Entity* e, float target, float max_step);
int CRAWL_FASTCALL entity_move(World* w, Entity* e, float dt);
/* entities.c */
int CRAWL_CDECL entity_damage(Entity* e, int amount);
void CRAWL_CDECL walker_think(Entity* e, World* w, float dt);
void CRAWL_CDECL turret_think(Entity* e, World* w, float dt);
extern const EntityVtbl walker_vtbl, turret_vtbl;
/* world.c */
int CRAWL_CDECL world_update(World* w, float dt);
extern World g_world;

#endif
