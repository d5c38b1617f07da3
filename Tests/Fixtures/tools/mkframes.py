# Writes frame-N.png (N = 0 ..< COUNT): WxH RGBA frames of the mkpng.py picture, each shifted
# further right (wrapping) with the alpha ramp kept in place, so every frame differs; the source
# of the AVIF sequence fixtures. Usage: mkframes.py WIDTH HEIGHT COUNT (files land in the current folder).
import zlib, struct, sys
w, h, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def colour(x, y):
    gx, gy = x * 255 // (w - 1), y * 255 // (h - 1)
    left, top = x < w // 2, y < h // 2
    if top and left: return (220, 40 + gx // 4, 40)
    if top: return (40, 200, 40 + gy // 4)
    if left: return (40 + gx // 4, 40, 210)
    return (230, 220, 40 + gy // 4)
def alpha(x): return 255 if x < w // 2 else max(0, 255 - (x - w // 2) * 255 // (w - w // 2))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
for i in range(count):
    shift = i * w // count
    raw = b''.join(b'\x00' + bytes(v for x in range(w) for v in colour((x - shift) % w, y) + (alpha(x),)) for y in range(h))
    open(f'frame-{i}.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
                                       + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
