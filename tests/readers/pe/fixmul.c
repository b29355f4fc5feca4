/* The PE32 test image (built by tests/readers/CMakeLists.txt with i686-w64-mingw32-gcc): a pure 16.16
 * fixed-point multiply, reached from Watcom's register convention through fixmul_thunk.S. The same
 * C routine is compiled natively into the test to give the expected results. */
#include <stdint.h>
#include <stdio.h>

#include "fixmul.h"

int main(int argc, char** argv) {
  (void)argv;
  printf("%ld\n", (long)fixmul_c((int32_t)argc << 16, 3 << 16));
  return 0;
}
