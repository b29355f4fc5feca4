#!/usr/bin/env python3
"""State logs (capture/docs/state-log.md), versions 1 and 2, for the scripts.

read_records(path) gives every record as (tag, step, instance, pass, [(address, bytes)]): a version 1
FRAM record's pass number comes from its instance field, as lockstep's reader takes it, so both
versions of the same recording give the same records.

    state_log.py --same A.log B.log   # exit 0 when the two logs hold the same records, whatever
                                      # their versions and producers; else 1 and the first difference
"""
import struct
import sys
import zlib


class BadLog(Exception):
    pass


def read_records(path):
    data = open(path, "rb").read()
    if len(data) < 32 or data[:8] != b"LKSTLOG\n":
        raise BadLog(f"{path}: not a state log (magic)")
    version, header_size = struct.unpack_from("<II", data, 8)
    if version not in (1, 2) or not 32 <= header_size <= 4096:
        raise BadLog(f"{path}: version {version}, header size {header_size} (this script reads versions 1 and 2)")
    head = 24 if version == 2 else 20
    pos = header_size
    out = []
    while pos < len(data):
        if pos + head > len(data):
            raise BadLog(f"{path}: record header cut short at offset {pos}")
        if version == 2:
            tag, step, instance, pass_, count, payload = struct.unpack_from("<4sIiiII", data, pos)
        else:
            tag, step, instance, count, payload = struct.unpack_from("<4sIiII", data, pos)
            pass_ = -1
            if tag == b"FRAM":
                instance, pass_ = -1, instance
        end = pos + head + payload
        if end + 4 > len(data):
            raise BadLog(f"{path}: record at offset {pos} cut short")
        if zlib.crc32(data[pos:end]) != struct.unpack_from("<I", data, end)[0]:
            raise BadLog(f"{path}: record at offset {pos}: CRC-32 differs")
        blocks = []
        p = pos + head
        for _ in range(count):
            address, size = struct.unpack_from("<II", data, p)
            blocks.append((address, data[p + 8:p + 8 + size]))
            p += 8 + size
        if p != end:
            raise BadLog(f"{path}: record at offset {pos}: blocks do not fill the payload")
        out.append((tag.decode("ascii", "replace"), step, instance, pass_, blocks))
        pos = end + 4
    return out


def same(a, b):
    ra, rb = read_records(a), read_records(b)
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            print(f"record {i} differs: {a}: {x[0]} step {x[1]} instance {x[2]} pass {x[3]}; "
                  f"{b}: {y[0]} step {y[1]} instance {y[2]} pass {y[3]}", file=sys.stderr)
            return False
    if len(ra) != len(rb):
        print(f"{a} has {len(ra)} records, {b} has {len(rb)}", file=sys.stderr)
        return False
    return True


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "--same":
        print("usage: state_log.py --same A.log B.log", file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(0 if same(sys.argv[2], sys.argv[3]) else 1)
    except (OSError, BadLog) as e:
        print(f"state_log.py: {e}", file=sys.stderr)
        sys.exit(2)
