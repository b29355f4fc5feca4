/* Angles and distances, in float and double on the x87. */
#include <math.h>

#include "crawl.h"

/* An angle brought into (-pi, pi] by whole turns; at most four turns are taken off or added (an angle
 * further out comes back still outside: the caller's bug, not hidden here). */
float CRAWL_CDECL angle_wrap(float a) {
  int turns = 0;
  while (a > PI_F && turns < 4) {
    a -= 2.0f * PI_F;
    ++turns;
  }
  while (a <= -PI_F && turns < 4) {
    a += 2.0f * PI_F;
    ++turns;
  }
  return a;
}

/* The straight-line distance between two entities, in double (mingw's sqrt: fsqrt at the x87's
 * precision). */
double CRAWL_CDECL entity_distance(const Entity* a, const Entity* b) {
  const double dx = a->pos.x - b->pos.x;
  const double dy = a->pos.y - b->pos.y;
  return sqrt(dx * dx + dy * dy);
}
