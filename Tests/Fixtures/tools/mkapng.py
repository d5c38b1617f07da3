# Writes anim-WxH.apng: four full RGBA frames of the mkpng.py picture, each shifted further right
# (wrapping), shown 100, 50, 200 and 30 ms, looping twice. The source of the JPEG XL animation fixture.
# Usage: mkapng.py WIDTH HEIGHT (the file lands in the current folder).
import zlib, struct, sys
from quadrants import rgba, chunk, ihdr, SIGNATURE
w, h = int(sys.argv[1]), int(sys.argv[2])
def px(x, y): return rgba(x, y, w, h)
def frame(shift):
    return zlib.compress(b''.join(b'\x00' + bytes(v for x in range(w) for v in px((x - shift) % w, y)) for y in range(h)))
delays = [100, 50, 200, 30]
out = SIGNATURE + ihdr(w, h, 8, 6)
out += chunk(b'acTL', struct.pack('>II', len(delays), 2))
seq = 0
for i, delay in enumerate(delays):
    out += chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, w, h, 0, 0, delay, 1000, 0, 0)); seq += 1
    data = frame(i * w // 8)
    if i == 0:
        out += chunk(b'IDAT', data)
    else:
        out += chunk(b'fdAT', struct.pack('>I', seq) + data); seq += 1
out += chunk(b'IEND', b'')
open(f'anim-{w}x{h}.apng', 'wb').write(out)
