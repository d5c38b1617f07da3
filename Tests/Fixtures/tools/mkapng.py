# Writes anim-WxH.apng: four full RGBA frames of the mkpng.py picture, each shifted further right
# (wrapping), shown 100, 50, 200 and 30 ms, looping twice. The source of the JPEG XL animation fixture.
# Usage: mkapng.py WIDTH HEIGHT (the file lands in the current folder).
import zlib, struct, sys
w, h = int(sys.argv[1]), int(sys.argv[2])
def px(x, y):
    gx, gy = x * 255 // (w - 1), y * 255 // (h - 1)
    left, top = x < w // 2, y < h // 2
    if top and left: c = (220, 40 + gx // 4, 40)
    elif top: c = (40, 200, 40 + gy // 4)
    elif left: c = (40 + gx // 4, 40, 210)
    else: c = (230, 220, 40 + gy // 4)
    a = 255 if x < w // 4 else max(0, 255 - (x - w // 4) * 255 // (w - w // 4))
    return c + (a,)
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
def frame(shift):
    return zlib.compress(b''.join(b'\x00' + bytes(v for x in range(w) for v in px((x - shift) % w, y)) for y in range(h)))
delays = [100, 50, 200, 30]
out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
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
