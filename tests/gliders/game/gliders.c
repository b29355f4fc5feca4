/* Gliders: a small 32-bit Linux game that lockstep's walkthrough (docs/porting-a-game.md) ports from
 * start to finish. Four gliders in one global world; positions, velocities and the wind in 16.16
 * fixed point, the lift each glider makes in float. Four functions, each in another convention:
 *   fx_mul        cdecl     16.16 product (64-bit intermediate)
 *   glider_push   fastcall  (ecx = glider, edx = thrust) speeds a glider up, its speed clamped
 *   glider_lift   stdcall   x87: lift = density * (vx^2 + vy^2) / 2, stored as a float
 *   world_step    cdecl     one tick of the world: calls the three above for every live glider
 * Built as the walkthrough says: gcc -m32 -O2 -static -std=gnu11 -fexcess-precision=standard.
 * main() runs the world (`--pause-at N` stops the process with SIGSTOP after N ticks, for a live
 * snapshot); lockstep itself never runs main. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int fixed; /* 16.16 */

typedef struct Glider {
  fixed x, y;        /* +0x00 +0x04 position */
  fixed vx, vy;      /* +0x08 +0x0c velocity, units per tick */
  float lift;        /* +0x10 the lift of the last tick */
  int alive;         /* +0x14 0 once it touched the ground */
} Glider;            /* 0x18 */

typedef struct World {
  Glider glider[4];  /* +0x00 */
  fixed wind;        /* +0x60 thrust the wind gives, before the gust factor */
  fixed gust;        /* +0x64 gust factor (16.16) */
  int ticks;         /* +0x68 */
  int landed;        /* +0x6c gliders that touched the ground */
} World;             /* 0x70 */

#define MAX_SPEED 0x40000 /* 4.0 units per tick, either axis */
#define SINK 0x1000       /* 1/16 unit per tick when the lift is too small */

World g_world = {
    {{0x00010000, 0x00640000, 0x00008000, 0x00000000, 0.0f, 1},
     {0x00050000, 0x00500000, 0x00010000, -0x00002000, 0.0f, 1},
     {0x000a0000, 0x00300000, 0x00018000, -0x00004000, 0.0f, 1},
     {0x00140000, 0x00c80000, 0x00002000, 0x00001000, 0.0f, 0}},
    0x00004000, 0x00018000, 0, 1};

__attribute__((noinline)) fixed fx_mul(fixed a, fixed b) { return (fixed)(((long long)a * b) >> 16); }

__attribute__((noinline, fastcall)) void glider_push(Glider* g, fixed thrust) {
  g->vx += thrust;
  g->vy -= thrust >> 2;
  if (g->vx > MAX_SPEED) g->vx = MAX_SPEED;
  if (g->vx < -MAX_SPEED) g->vx = -MAX_SPEED;
  if (g->vy < -MAX_SPEED) g->vy = -MAX_SPEED;
}

__attribute__((noinline, stdcall)) void glider_lift(Glider* g, float density) {
  const float vx = g->vx / 65536.0f, vy = g->vy / 65536.0f;
  g->lift = density * (vx * vx + vy * vy) * 0.5f;
}

__attribute__((noinline)) void world_step(World* w) {
  const fixed thrust = fx_mul(w->wind, w->gust);
  for (int i = 0; i < 4; ++i) {
    Glider* g = &w->glider[i];
    if (!g->alive) continue;
    glider_push(g, thrust);
    glider_lift(g, 1.225f);
    g->x += g->vx;
    g->y += g->vy;
    if (g->lift < 0.5f) g->y -= SINK;
    if (g->y < 0) {
      g->y = 0;
      g->alive = 0;
      ++w->landed;
    }
  }
  ++w->ticks;
}

int main(int argc, char** argv) {
  int pause_at = -1, ticks = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--pause-at")) pause_at = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--ticks")) ticks = atoi(argv[i + 1]);
  }
  for (int t = 0; t < ticks; ++t) {
    if (t == pause_at) raise(SIGSTOP); /* a live snapshot is taken here */
    world_step(&g_world);
  }
  printf("gliders: %d ticks, %d landed\n", g_world.ticks, g_world.landed);
  return 0;
}
