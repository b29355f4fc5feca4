// Exact integer models of the x87 routines' rounding, for the port's tests: expected values are
// computed here with 128-bit integers, never by the code under test.
#pragma once

__extension__ typedef __int128 i128;

/// Round n / d to nearest, ties to even (d > 0), exactly.
inline i128 div_round_even(i128 n, i128 d) {
  i128 q = n / d;
  i128 r = n % d;
  if (r < 0) {
    r += d;
    q -= 1;
  }
  if (2 * r > d || (2 * r == d && (q & 1) != 0)) q += 1;
  return q;
}

/// IEEE binary64 rounding of an exact integer (round to nearest even at 53 significant bits).
inline i128 round53(i128 v) {
  const bool neg = v < 0;
  i128 a = neg ? -v : v;
  int bits = 0;
  for (i128 t = a; t != 0; t >>= 1) ++bits;
  if (bits > 53) {
    const i128 unit = i128{1} << (bits - 53);
    a = div_round_even(a, unit) * unit;
  }
  return neg ? -a : a;
}
