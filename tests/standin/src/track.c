/* The track, laid out at start-up in POD's in-memory layout (port/CHOICES.md "Track"; the layout and
 * the geometry are recorded in port/CHOICES.md, "Track").
 *
 * A closed ring road of 24 sectors around the origin, radius 120, 16 wide, counter-clockwise, with a
 * slope up to 8 high and down again, and a sharp bump that throws a fast car into the air. Each sector
 * has its own mesh: 3 rings of 5 vertices (inner wall top, inner edge, centre, outer edge, outer wall
 * top), two road faces per lane (quads; triangles in sectors 2 and 3) flagged ground, and wall quads on
 * both sides flagged wall. A 25th sector, out of play (neighbour count -1), is a ledge beyond the
 * gap, its floor two triangles flagged wall (see the end of track_build).
 * Computed with the stand-in's own integer arithmetic (sin16, cos16, cross16, length16, div16), so
 * it is the same on every machine and under an emulator. */
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "pod_call.h"
#include "standin_math.h"

#define SECTORS_IN_LOOP 24
#define SECTORS (SECTORS_IN_LOOP + 1)
#define RINGS_PER_SECTOR 3 /* rings at the sector's start, middle and end */
#define VERTS_PER_RING 5
#define TWO_PI16 411774
#define WALL_HEIGHT (3 * FX_ONE)
#define RENDER_GOURAUD 0x20
#define LEDGE_FIRST_RING 10 /* the ledge beyond the gap (sector 24, out of play) */
#define LEDGE_LAST_RING 12
#define LEDGE_INNER (140 * FX_ONE)
#define LEDGE_OUTER (152 * FX_ONE)
#define LEDGE_DEPTH (5 * FX_ONE)

static uint32_t heap = POD_TRACK_HEAP;

static uint32_t alloc(uint32_t size) {
  uint32_t at = heap;
  heap += (size + 3u) & ~3u;
  if (heap > POD_TRACK_HEAP_END) __builtin_trap();  /* the track outgrew its reserved heap */
  memset(PTR(at), 0, size);
  return at;
}

/* Height of the road at ring g (0..47 around the loop, two rings per sector). The cars start near
 * ring 0 and cover a quarter to a half of the loop in 400 steps, so the features come early: a sharp
 * bump at ring 6 (up 1.5 over a half sector, then straight down again: a fast car leaves the ground),
 * then a slope up to 8 from ring 14 and down again. */
static fx ring_height(int g) {
  g %= 2 * SECTORS_IN_LOOP;
  if (g == 6) return 3 * FX_ONE;                        /* the kicker, 3 high: a jump */
  if (g >= 14 && g < 22) return (g - 14) * FX_ONE;      /* the slope up: 1 per half sector */
  if (g >= 22 && g < 28) return 8 * FX_ONE;
  if (g >= 28 && g < 36) return (36 - g) * FX_ONE;      /* and down */
  return 0;
}

static fx ring_angle(int g) { return (fx)(((int64_t)TWO_PI16 * g) / (2 * SECTORS_IN_LOOP)); }

/* The unit normal of (b - a) x (c - a). */
static void unit_normal(const vec3 *a, const vec3 *b, const vec3 *c, vec3 *out) {
  vec3 u = {b->x - a->x, b->y - a->y, b->z - a->z}, v = {c->x - a->x, c->y - a->y, c->z - a->z};
  vec3 n;
  POD_CALL3(FN_CROSS16, ADDR(&u), ADDR(&v), ADDR(&n));
  int32_t len = POD_CALL1(FN_LENGTH16, ADDR(&n));
  out->x = div16(n.x, len);
  out->y = div16(n.y, len);
  out->z = div16(n.z, len);
}

static void sub(const vec3 *a, const vec3 *b, vec3 *out) {
  out->x = a->x - b->x;
  out->y = a->y - b->y;
  out->z = a->z - b->z;
}

/* A quad's face normal, from its diagonals (c - a) x (d - b); the halves' a b c and c d a come from
 * setup::quad_halves (0x4247f8, F133) once the mesh holds its vertices. */
static void quad(uint32_t q, const vec3 *verts, int a, int b, int c, int d, uint8_t flags, uint8_t surface) {
  vec3 ac, bd, n;
  sub(&verts[c], &verts[a], &ac);
  sub(&verts[d], &verts[b], &bd);
  POD_CALL3(FN_CROSS16, ADDR(&ac), ADDR(&bd), ADDR(&n));
  int32_t len = POD_CALL1(FN_LENGTH16, ADDR(&n));
  vec3 *face = VEC(q, QUAD_NORMAL);
  face->x = div16(n.x, len);
  face->y = div16(n.y, len);
  face->z = div16(n.z, len);
  U16(q, QUAD_CORNERS + 0) = (uint16_t)a;
  U16(q, QUAD_CORNERS + 2) = (uint16_t)b;
  U16(q, QUAD_CORNERS + 4) = (uint16_t)c;
  U16(q, QUAD_CORNERS + 6) = (uint16_t)d;
  U8(q, QUAD_RENDER) = RENDER_GOURAUD;
  U8(q, QUAD_FLAGS) = flags;
  U8(q, QUAD_SURFACE) = surface;
}

static void triangle(uint32_t t, const vec3 *verts, int a, int b, int c, uint8_t flags, uint8_t surface) {
  unit_normal(&verts[a], &verts[b], &verts[c], VEC(t, TRI_NORMAL));
  U16(t, TRI_CORNERS + 0) = (uint16_t)a;
  U16(t, TRI_CORNERS + 2) = (uint16_t)b;
  U16(t, TRI_CORNERS + 4) = (uint16_t)c;
  U8(t, TRI_RENDER) = RENDER_GOURAUD;
  U8(t, TRI_FLAGS) = flags;
  U8(t, TRI_SURFACE) = surface;
}

/* Bounds: the mesh's box with the floor 2 lower and the top 10 higher (F131). */
static void bounds(uint32_t sector, const vec3 *verts, int n) {
  vec3 lo = verts[0], hi = verts[0];
  for (int i = 1; i < n; ++i) {
    if (verts[i].x < lo.x) lo.x = verts[i].x;
    if (verts[i].y < lo.y) lo.y = verts[i].y;
    if (verts[i].z < lo.z) lo.z = verts[i].z;
    if (verts[i].x > hi.x) hi.x = verts[i].x;
    if (verts[i].y > hi.y) hi.y = verts[i].y;
    if (verts[i].z > hi.z) hi.z = verts[i].z;
  }
  lo.z -= 2 * FX_ONE;
  hi.z += 10 * FX_ONE;
  *VEC(sector, SECTOR_BOUNDS_MIN) = lo;
  *VEC(sector, SECTOR_BOUNDS_MAX) = hi;
}

static uint8_t lane_surface(int sector, int lane) {
  if (sector == 4 || sector == 5) return 3;   /* ice on both lanes: the fast corner's skids */
  if (lane == 0) return sector == 8 ? 3 : 0;  /* an icy patch on the inner lane, up the slope */
  return sector == 9 ? 2 : 1;                 /* a grass-like outer lane there, kerb elsewhere */
}

/* The features off the road's outer edge, in half h of sector s (rings 2s + h, 2s + h + 1):
 * BAY a dead-end bay 8 deep behind the outer edge (floor, back wall as two triangles, two side walls): a car that
 * drives in gets stuck against its back wall; GAP no outer wall and nothing beyond: a car that drives
 * out falls; BANK a steep bank (60 degrees, ground) up to a crest 3.5 high, a slope down behind it (both as
 * triangles)
 * and a run-off ending in a wall: a car that takes it fast lands on its side or roof. */
enum { PLAIN, BAY, GAP, BANK };
static int outer_feature(int sector, int h) {
  switch (2 * sector + h) {
    case 8: return BAY;
    case 9: return BANK;
    case 10: return GAP;
    default: return PLAIN;
  }
}

/* The race paths (002, "The race paths"; fields chosen): 16 nodes on the centre line every 22.5
 * degrees (3 rings), a link from each to the next with 2 points between them (at its rings 3k + 1
 * and 3k + 2); node 8 (ring 24) has a second link out along the inner lane. A car put back with its
 * tracker on link 3's last point (ring 11, where the gap is) asks FUN_004abae8 for what follows node
 * 4, its only link's first point. A link's values: the distance along the centre line at its points.
 * [0x543254] = link 0.
 *
 * Then four spurs: links of one point each, off the road by the bank and the bay where cars leave
 * the ground before they are put back, so a put-back car's tracker is a spur's last point and the
 * put-back asks what follows it (paths::next_point, F084): a spur that ends nowhere (no end node), one
 * that ends at a node with no link out, one whose end node's only link has no points (the three
 * "nothing follows": the put-back heads as the car faced, F083), and one that ends at node 8 across
 * the infield (several links out: the heading is that node, 190 units away). Each point lies where
 * its car's body centre is at its last step with a wheel down (from `standin --trace`), so it is that
 * car's nearest point by FUN_004aa8a0's distance; its value is its ring's, as the road's points
 * there. */
#define PATH_STEP 1029449  /* 15.708 units a ring */
/* a link into the paths' link table (port/CHOICES.md, "The race's paths") */
static void table_link(uint32_t link) {
  int32_t n = I32(POD_PATH_LINKS, 0);
  if (n >= PATH_LINKS_MAX) __builtin_trap();  /* the table is full */
  U32(POD_PATH_LINKS, 4u + 4u * (uint32_t)n) = link;
  I32(POD_PATH_LINKS, 0) = n + 1;
}

enum { SPUR_NOWHERE, SPUR_DEAD_END, SPUR_EMPTY_NEXT, SPUR_JUNCTION };
static const struct spur {
  fx x, y, z;
  int ring, kind;
} spurs[] = {
    {0x2a31aa, 0x76e20c, 0x5fae1, 9, SPUR_NOWHERE},     /* (42.2, 118.9) 6.0 up, racer 2: over the bank's crest */
    {0x2883d7, 0x7aef1b, 0x468f6, 10, SPUR_DEAD_END},   /* (40.5, 122.9) 4.4 up, racer 4: the bank */
    {0x39fbe7, 0x79e72b, 0x17333, 9, SPUR_EMPTY_NEXT},  /* (58.0, 121.9) 1.5 up, racer 6: the bay's mouth */
    {0x265efa, 0x7a174c, 0x55c29, 10, SPUR_JUNCTION},   /* (38.4, 122.1) 5.4 up, racer 0: the bank */
};

static void paths_build(void) {
  enum { NODES = 16, POINTS = 2 };
  uint32_t nodes = alloc(NODES * NODE_SIZE);
  for (int k = 0; k < NODES; ++k) {
    uint32_t node = nodes + (uint32_t)k * NODE_SIZE;
    fx a = ring_angle(3 * k), c = POD_CALL1(FN_COS16, a), sn = POD_CALL1(FN_SIN16, a);
    *VEC(node, NODE_POSITION) = (vec3){mul16(TRACK_RADIUS, c), mul16(TRACK_RADIUS, sn), ring_height(3 * k)};
    I32(node, NODE_VALUE) = 3 * k * PATH_STEP;
  }
  I32(POD_PATH_LINKS, 0) = 0;
  for (int k = 0; k < NODES; ++k) {
    uint32_t start = nodes + (uint32_t)k * NODE_SIZE, end = nodes + (uint32_t)((k + 1) % NODES) * NODE_SIZE;
    int lanes = k == 8 ? 2 : 1;
    uint32_t list = alloc(4u * (uint32_t)lanes);
    I32(start, NODE_LINK_COUNT) = lanes;
    U32(start, NODE_LINKS) = list;
    for (int lane = 0; lane < lanes; ++lane) {
      uint32_t link = alloc(LINK_SIZE), pts = alloc(POINTS * 12u), vals = alloc(POINTS * 4u);
      fx radius = lane ? TRACK_RADIUS - 4 * FX_ONE : TRACK_RADIUS;
      for (int j = 0; j < POINTS; ++j) {
        int g = 3 * k + j + 1;
        fx a = ring_angle(g), c = POD_CALL1(FN_COS16, a), sn = POD_CALL1(FN_SIN16, a);
        *VEC(pts + 12u * (uint32_t)j, 0) = (vec3){mul16(radius, c), mul16(radius, sn), ring_height(g)};
        I32(vals + 4u * (uint32_t)j, 0) = g * PATH_STEP;
      }
      U32(link, LINK_END) = end;
      U32(link, LINK_START) = start;
      U32(link, LINK_POINTS) = pts;
      U32(link, LINK_VALUES) = vals;
      I32(link, LINK_COUNT) = POINTS;
      U32(list, 4u * (uint32_t)lane) = link;
      table_link(link);
    }
  }
  for (unsigned k = 0; k < sizeof spurs / sizeof spurs[0]; ++k) {
    const struct spur *sp = &spurs[k];
    uint32_t link = alloc(LINK_SIZE), pts = alloc(12u), vals = alloc(4u), end = 0;
    if (sp->kind == SPUR_DEAD_END || sp->kind == SPUR_EMPTY_NEXT) {
      end = alloc(NODE_SIZE);
      *VEC(end, NODE_POSITION) = *VEC(pts, 0);
      if (sp->kind == SPUR_EMPTY_NEXT) {  /* its only link: no points, going nowhere */
        uint32_t list = alloc(4u), empty = alloc(LINK_SIZE);
        U32(empty, LINK_START) = end;
        U32(list, 0) = empty;
        I32(end, NODE_LINK_COUNT) = 1;
        U32(end, NODE_LINKS) = list;
      }
    } else if (sp->kind == SPUR_JUNCTION) {
      end = nodes + 8u * NODE_SIZE;
    }
    *VEC(pts, 0) = (vec3){sp->x, sp->y, sp->z};
    I32(vals, 0) = sp->ring * PATH_STEP;
    U32(link, LINK_END) = end;
    U32(link, LINK_POINTS) = pts;
    U32(link, LINK_VALUES) = vals;
    I32(link, LINK_COUNT) = 1;
    table_link(link);
  }
  U32(POD_PATHS, 0) = U32(POD_PATH_LINKS, 4);
}

void track_build(void) {
  POD_CALL0(FN_SURFACE_DEFAULTS);
  uint32_t table = alloc(SECTORS * SECTOR_SIZE);
  I32(POD_SECTOR_COUNT, 0) = SECTORS;
  U32(POD_SECTOR_TABLE, 0) = table;
  static const fx radii[VERTS_PER_RING] = {TRACK_RADIUS - TRACK_HALF_WIDTH, TRACK_RADIUS - TRACK_HALF_WIDTH,
                                           TRACK_RADIUS, TRACK_RADIUS + TRACK_HALF_WIDTH,
                                           TRACK_RADIUS + TRACK_HALF_WIDTH};

  for (int s = 0; s < SECTORS_IN_LOOP; ++s) {
    uint32_t sector = table + (uint32_t)s * SECTOR_SIZE;
    int features[2] = {outer_feature(s, 0), outer_feature(s, 1)}, first_extra[2], extra = 0, nfeatures = 0;
    for (int h = 0; h < 2; ++h) {
      first_extra[h] = RINGS_PER_SECTOR * VERTS_PER_RING + extra;
      extra += features[h] == BAY ? 4 : features[h] == BANK ? 8 : 0;  /* feature vertices */
      nfeatures += features[h] == BAY || features[h] == BANK ? 3 : features[h] == GAP ? -1 : 0;
    }
    const int nverts = RINGS_PER_SECTOR * VERTS_PER_RING + extra;
    const int triangles = (s >= 2 && s < 4) || s == 5;  /* the kicker's and the gap's sectors are triangles */
    uint32_t mesh = alloc(MESH_SIZE), verts = alloc(nverts * 12u);
    vec3 *v = (vec3 *)PTR(verts);
    for (int ring = 0; ring < RINGS_PER_SECTOR; ++ring) {
      int g = 2 * s + ring;
      fx angle = ring_angle(g), c = POD_CALL1(FN_COS16, angle), sn = POD_CALL1(FN_SIN16, angle);
      fx z = ring_height(g);
      for (int k = 0; k < VERTS_PER_RING; ++k) {
        vec3 *p = &v[ring * VERTS_PER_RING + k];
        p->x = mul16(radii[k], c);
        p->y = mul16(radii[k], sn);
        p->z = z + ((k == 0 || k == 4) ? WALL_HEIGHT : 0);
      }
    }
    /* faces: per half sector h (rings h, h+1), lanes 0 (inner) and 1 (outer), then the two walls */
    int nroad = 2 * 2, nwalls = 2 * 2 + nfeatures - 2 * ((features[0] == BANK) + (features[1] == BANK)) - ((features[0] == BAY) + (features[1] == BAY));
    uint32_t quads = alloc((uint32_t)((triangles ? 0 : nroad) + nwalls) * QUAD_SIZE);
    int nbank_tris = 4 * ((features[0] == BANK) + (features[1] == BANK)) + 2 * ((features[0] == BAY) + (features[1] == BAY));
    int ntris = (triangles ? 2 * nroad : 0) + nbank_tris;
    uint32_t tris = ntris ? alloc((uint32_t)ntris * TRI_SIZE) : 0;
    int nq = 0, nt = 0;
#define V(ring, k) ((ring) * VERTS_PER_RING + (k))
    /* each feature's vertices after the rings': for its two rings, at the radii and heights below */
    for (int h = 0; h < 2; ++h) {
      static const fx bay_r[2] = {136 * FX_ONE, 136 * FX_ONE}, bay_z[2] = {0, WALL_HEIGHT};
      static const fx bank_r[4] = {129 * FX_ONE, 134 * FX_ONE, 142 * FX_ONE, 142 * FX_ONE};
      static const fx bank_z[4] = {0x38000, 0, 0, WALL_HEIGHT};
      int per = features[h] == BAY ? 2 : features[h] == BANK ? 4 : 0;
      for (int ring = 0; ring < 2 && per; ++ring) {
        int g = 2 * s + h + ring;
        fx angle = ring_angle(g), c = POD_CALL1(FN_COS16, angle), sn = POD_CALL1(FN_SIN16, angle);
        for (int k = 0; k < per; ++k) {
          fx r = features[h] == BAY ? bay_r[k] : bank_r[k], z = features[h] == BAY ? bay_z[k] : bank_z[k];
          v[first_extra[h] + ring * per + k] = (vec3){mul16(r, c), mul16(r, sn), ring_height(g) + z};
        }
      }
    }
#define X(ring, k) (first_extra[h] + (ring) * (features[h] == BAY ? 2 : 4) + (k))
    for (int h = 0; h < 2; ++h) {
      const int feature = features[h];
      for (int lane = 0; lane < 2; ++lane) {
        /* a, b across the road at ring h; c, d at ring h + 1: (b - a) x (c - a) points up */
        int a = V(h, 1 + lane), b = V(h, 2 + lane), c = V(h + 1, 2 + lane), d = V(h + 1, 1 + lane);
        uint8_t surface = lane_surface(s, lane);
        if (triangles) {
          triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, a, b, c, FACE_GROUND, surface);
          triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, c, d, a, FACE_GROUND, surface);
        } else {
          quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, a, b, c, d, FACE_GROUND, surface);
        }
      }
      /* the inner wall faces the road (+r), the outer wall too (-r) */
      quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, V(h, 1), V(h + 1, 1), V(h + 1, 0), V(h, 0), FACE_WALL, 0);
      if (feature == PLAIN) {
        quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, V(h + 1, 3), V(h, 3), V(h, 4), V(h + 1, 4), FACE_WALL, 0);
      } else if (feature == BAY) {
        /* floor (up), back wall (facing in), the side walls (facing into the bay) */
        quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, V(h, 3), X(0, 0), X(1, 0), V(h + 1, 3), FACE_GROUND, 1);
        triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, X(1, 0), X(0, 0), X(0, 1), FACE_WALL, 0);
        triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, X(0, 1), X(1, 1), X(1, 0), FACE_WALL, 0);
        quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, X(0, 0), V(h, 3), V(h, 4), X(0, 1), FACE_WALL, 0);
        quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, V(h + 1, 3), X(1, 0), X(1, 1), V(h + 1, 4), FACE_WALL, 0);
      } else if (feature == BANK) {
        /* the bank up to the crest (two triangles), the slope down behind it, the run-off, its end wall */
        triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, V(h, 3), X(0, 0), X(1, 0), FACE_GROUND, 1);
        triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, X(1, 0), V(h + 1, 3), V(h, 3), FACE_GROUND, 1);
        triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, X(0, 0), X(0, 1), X(1, 1), FACE_GROUND, 1);
        triangle(tris + (uint32_t)(nt++) * TRI_SIZE, v, X(1, 1), X(1, 0), X(0, 0), FACE_GROUND, 1);
        quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, X(0, 1), X(0, 2), X(1, 2), X(1, 1), FACE_GROUND, 1);
        quad(quads + (uint32_t)(nq++) * QUAD_SIZE, v, X(1, 2), X(0, 2), X(0, 3), X(1, 3), FACE_WALL, 0);
      }
    }
#undef X
#undef V
    U16(mesh, MESH_VERTEX_COUNT) = (uint16_t)nverts;
    I16(mesh, MESH_TRI_COUNT) = (int16_t)nt;
    I16(mesh, MESH_QUAD_COUNT) = (int16_t)nq;
    U32(mesh, MESH_VERTICES) = verts;
    U32(mesh, MESH_TRIS) = tris;
    U32(mesh, MESH_QUADS) = quads;
    for (int k = 0; k < nq; ++k) POD_CALL2(FN_QUAD_HALVES, quads + (uint32_t)k * QUAD_SIZE, mesh);

    U32(sector, SECTOR_MESH) = mesh;
    bounds(sector, v, nverts);
    uint32_t list = alloc(2 * 4);
    U32(list, 0) = table + (uint32_t)((s + SECTORS_IN_LOOP - 1) % SECTORS_IN_LOOP) * SECTOR_SIZE;
    U32(list, 4) = table + (uint32_t)((s + 1) % SECTORS_IN_LOOP) * SECTOR_SIZE;
    I32(sector, SECTOR_NEIGHBOURS) = 2;
    U32(sector, SECTOR_NEIGHBOUR_LIST) = list;
    I32(sector, SECTOR_ONE) = 1;
  }

  paths_build();

  /* Sector 24: out of play (neighbour count -1: no sector lists it, it lists none): the ledge, a
   * floor flagged wall 5 below the road beyond the gap (rings 10..12, radius 140..152). A fast car
   * that flies out of the gap lands on it: no wheel can stand on a wall, so the car lies on it as on
   * its roof, pushed out by its face (F074), its points in sector 24, found only by the search of
   * every sector (F070); it slides off the edge, falls 10 below the ledge (F080) and is put back on
   * the face wheel 0 last touched, on the road, where sector 24 does not hold its points and lists no
   * neighbours: world::sector_near falls back on world::sector_any. A slower car falls short of the
   * ledge, its points still in the gap's sector, and is put back in the sector before it (the
   * neighbours' search). */
  uint32_t sector = table + SECTORS_IN_LOOP * SECTOR_SIZE;
  uint32_t mesh = alloc(MESH_SIZE), verts = alloc(4 * 12u), tris = alloc(2 * TRI_SIZE);
  vec3 *v = (vec3 *)PTR(verts);
  const fx ledge_r[2] = {LEDGE_INNER, LEDGE_OUTER};
  for (int k = 0; k < 4; ++k) {  /* inner and outer at ring 10, outer and inner at ring 12: up */
    fx a = ring_angle(k < 2 ? LEDGE_FIRST_RING : LEDGE_LAST_RING), r = ledge_r[k == 1 || k == 2];
    v[k] = (vec3){mul16(r, POD_CALL1(FN_COS16, a)), mul16(r, POD_CALL1(FN_SIN16, a)), -LEDGE_DEPTH};
  }
  /* two triangles, no quad: the only mesh the track pass searches without quads */
  triangle(tris, v, 0, 1, 2, FACE_WALL, 0);
  triangle(tris + TRI_SIZE, v, 2, 3, 0, FACE_WALL, 0);
  U16(mesh, MESH_VERTEX_COUNT) = 4;
  I16(mesh, MESH_TRI_COUNT) = 2;
  U32(mesh, MESH_VERTICES) = verts;
  U32(mesh, MESH_TRIS) = tris;
  U32(sector, SECTOR_MESH) = mesh;
  bounds(sector, v, 4);
  I32(sector, SECTOR_NEIGHBOURS) = -1;
  I32(sector, SECTOR_ONE) = 1;
}
