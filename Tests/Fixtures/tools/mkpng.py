# Writes the source pictures of the AVIF/HEIF fixtures as PNG (8-bit RGB and RGBA, 16-bit RGB):
# four quadrants of distinct hue with soft gradients, and an alpha ramp over the right part.
# Usage: mkpng.py WIDTH HEIGHT (files land in the current folder).
import zlib, struct, sys
def png(path, w, h, px, alpha):
    ct = 6 if alpha else 2
    raw = b''.join(b'\x00' + bytes(v for x in range(w) for v in (px(x, y) if alpha else px(x, y)[:3])) for y in range(h))
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, ct, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
def picture(w, h):
    # Four quadrants of distinct hue, each a soft gradient, so orientation and colour are both visible.
    def px(x, y):
        gx, gy = x * 255 // (w - 1), y * 255 // (h - 1)
        left, top = x < w // 2, y < h // 2
        if top and left: c = (220, 40 + gx // 4, 40)
        elif top: c = (40, 200, 40 + gy // 4)
        elif left: c = (40 + gx // 4, 40, 210)
        else: c = (230, 220, 40 + gy // 4)
        a = 255 if x < w // 4 else max(0, 255 - (x - w // 4) * 255 // (w - w // 4))
        return c + (a,)
    return px
w, h = int(sys.argv[1]), int(sys.argv[2])
png(f'rgb-{w}x{h}.png', w, h, picture(w, h), False)
png(f'rgba-{w}x{h}.png', w, h, picture(w, h), True)
def png16(path, w, h, px):
    raw = b''.join(b'\x00' + b''.join(struct.pack('>HHH', *(v * 257 + (x * 7 + y * 3) % 200 for v in px(x, y)[:3])) for x in range(w)) for y in range(h))
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 16, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
png16(f'rgb16-{w}x{h}.png', w, h, picture(w, h))
