"""What the call-list scripts share: printing their calls as a call list (capture/docs/call-list.md)."""


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
