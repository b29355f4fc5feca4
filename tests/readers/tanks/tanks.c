/* Tanks: a small 32-bit game no other part of lockstep was written against, for the checks a profile
 * gets at capture (its declared conventions against what the calls did, its addresses against the
 * ELF's symbols) and for call lists that reach functions only other functions call.
 *
 * A global world of four tanks (16.16 position and velocity, a heading, a float fuel); one function
 * in each of the conventions GCC gives i386 code: tank_thrust cdecl, tank_move fastcall (ecx, edx),
 * tank_burn stdcall (pops its 8 bytes of arguments, x87 arithmetic), and tank_step (cdecl) calling
 * the three. Built `gcc -m32 -O2 -static`; lockstep maps the executable alone (no process runs it).
 * noipa: GCC must neither inline nor clone them (a clone has a convention of its own). */
struct tank {
  int x, y;   /* 16.16 */
  int vx, vy; /* 16.16 per step */
  int heading;
  float fuel;
};

struct tank world[4] = {{0, 0, 0, 0, 0, 100.0f}, {0x10000, 0, 0, 0, 64, 50.0f}, {0, 0x20000, 0, 0, 128, 25.0f},
                        {0x30000, 0x30000, 0, 0, 192, 1.0f}};

__attribute__((noipa)) void tank_thrust(struct tank *t, int throttle) {
  t->vx += throttle >> 4;
  t->vy += (throttle * (t->heading & 0xff)) >> 8;
}

__attribute__((noipa, fastcall)) void tank_move(struct tank *t, int steps) {
  t->x += t->vx * steps;
  t->y += t->vy * steps;
}

__attribute__((noipa, stdcall)) int tank_burn(struct tank *t, int throttle) {
  t->fuel -= (float)throttle * 0.25f;
  return t->fuel > 0.0f;
}

__attribute__((noipa)) void tank_step(int i, int throttle) {
  struct tank *t = &world[i & 3];
  tank_thrust(t, throttle);
  tank_move(t, 2);
  if (!tank_burn(t, throttle)) t->vx = 0;
}

/* Never called by tank_step: a profile function a call list does not reach. */
__attribute__((noipa)) int tank_count(void) { return 4; }

int main(void) {
  for (int k = 0; k < 10; ++k)
    for (int i = 0; i < 4; ++i) tank_step(i, k * 16);
  return world[0].x + tank_count();
}
