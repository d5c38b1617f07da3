# Writes the source pictures of the AVIF/HEIF fixtures as PNG (8-bit RGB and RGBA, 16-bit RGB):
# the quadrant picture of quadrants.py. Usage: mkpng.py WIDTH HEIGHT (files land in the current folder).
import zlib, struct, sys
from quadrants import rgba, chunk, ihdr, SIGNATURE
def png(path, w, h, alpha):
    raw = b''.join(b'\x00' + bytes(v for x in range(w) for v in (rgba(x, y, w, h) if alpha else rgba(x, y, w, h)[:3])) for y in range(h))
    open(path, 'wb').write(SIGNATURE + ihdr(w, h, 8, 6 if alpha else 2) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
def png16(path, w, h):
    raw = b''.join(b'\x00' + b''.join(struct.pack('>HHH', *(v * 257 + (x * 7 + y * 3) % 200 for v in rgba(x, y, w, h)[:3])) for x in range(w)) for y in range(h))
    open(path, 'wb').write(SIGNATURE + ihdr(w, h, 16, 2) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
w, h = int(sys.argv[1]), int(sys.argv[2])
png(f'rgb-{w}x{h}.png', w, h, False)
png(f'rgba-{w}x{h}.png', w, h, True)
png16(f'rgb16-{w}x{h}.png', w, h)
