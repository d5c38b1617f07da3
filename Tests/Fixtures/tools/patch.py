# Rewrites fixture files in place-sized ways: the ftyp brands, or the primary item id (pitm).
import struct, sys

def boxes(data, start, end):
    i = start
    while i + 8 <= end:
        size, kind = struct.unpack('>I4s', data[i:i + 8])
        yield i, size, kind.decode('latin-1')
        i += size

def set_brands(data, brands):
    size = struct.unpack('>I', data[:4])[0]
    assert data[4:8] == b'ftyp' and len(brands) == (size - 16) // 4 + 1
    out = bytearray(data)
    out[8:12] = brands[0].encode()
    for n, b in enumerate(brands[1:]):
        out[16 + 4 * n:20 + 4 * n] = b.encode()
    return bytes(out)

def set_primary(data, item):
    for i, size, kind in boxes(data, 0, len(data)):
        if kind == 'meta':
            for j, s, k in boxes(data, i + 12, i + size):
                if k == 'pitm':
                    out = bytearray(data)
                    out[j + 12:j + 14] = struct.pack('>H', item)
                    return bytes(out)
    raise SystemExit('no pitm')

src, dst, what = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, 'rb').read()
data = set_primary(data, int(sys.argv[4])) if what == 'pitm' else set_brands(data, what.split(','))
open(dst, 'wb').write(data)
