/* The game's loop (never run by lockstep: the EXE is snapshotted alone and its functions called). */
#include <float.h>
#include <stdio.h>
#include <windows.h>

#include "crawl.h"

int main(void) {
  /* 53-bit x87 precision, as the game's arithmetic assumes (../game.toml's fpu_control_word). */
  _controlfp(_PC_53, _MCW_PC);
  int frame = 0;
  for (; frame < 900; ++frame) {
    if (world_update(&g_world, 1.0f / 30.0f) == 0) break;
    Sleep(33);
  }
  printf("crawl: %d frames, %d walkers left\n", frame,
         g_world.entities[0].flags + g_world.entities[1].flags + g_world.entities[2].flags);
  return 0;
}
