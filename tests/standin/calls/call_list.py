"""What the call-list scripts share: values as pokes spell them, and printing their calls as a call list
(capture/docs/call-list.md)."""
import struct


# Values as the call list's hex pokes spell them (little-endian bytes). 16.16 unless said.
ONE = 1 << 16


def fx(v):
    """A real number as a 16.16 word, rounded to nearest."""
    return int(round(v * ONE))


def words(*values):
    """Signed 32-bit words as hex."""
    return struct.pack("<%di" % len(values), *values).hex()


def vec(x, y, z):
    """A 16.16 vector of three reals as hex."""
    return words(fx(x), fx(y), fx(z))


def u32(v):
    """One 32-bit word as hex (any sign: its two's complement)."""
    return struct.pack("<I", v & 0xFFFFFFFF).hex()


def add(p, *terms):
    """p plus each scale x vector of terms: add(p, (s, v), ...)."""
    x, y, z = p
    for s, v in terms:
        x, y, z = x + s * v[0], y + s * v[1], z + s * v[2]
    return (x, y, z)


def toml_value(v, hex_above=None):
    """An argument as the call list spells it: a label in quotes, a negative 32-bit word as its two's
    complement, a number in decimal (in hex past `hex_above`, when given)."""
    if isinstance(v, str):
        return '"%s"' % v
    if v < 0:  # a negative 32-bit argument as its two's complement word
        return "0x%08x" % (v & 0xFFFFFFFF)
    if hex_above is not None and v > hex_above:
        return "0x%x" % v
    return str(v)


def print_call_list(header, calls, hex_above=None):
    """Prints the header lines as comments, then each call: (comment, function, args, pokes[, repeat])."""
    for line in header:
        print("# " + line)
    for comment, function, args, pokes, *rest in calls:
        repeat = rest[0] if rest else 1
        print()
        print("# " + comment)
        print("[[call]]")
        print('function = "%s"' % function)
        print("args = [%s]" % ", ".join(toml_value(a, hex_above) for a in args))
        if pokes:
            print("pokes = [")
            for p in pokes:
                print('  "%s",' % p)
            print("]")
        if repeat != 1:
            print("repeat = %d" % repeat)
