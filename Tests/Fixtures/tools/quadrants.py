# The fixtures' test picture, shared by the scripts that write it: four quadrants of distinct hue,
# each a soft gradient (so orientation and colour are both visible), and an alpha ramp from
# opaque to clear over the right part. Also the PNG chunk writer those scripts use.
import struct, zlib

def colour(x, y, w, h):
    """The (r, g, b) of pixel (x, y) of a w×h picture."""
    gx, gy = x * 255 // (w - 1), y * 255 // (h - 1)
    left, top = x < w // 2, y < h // 2
    if top and left: return (220, 40 + gx // 4, 40)
    if top: return (40, 200, 40 + gy // 4)
    if left: return (40 + gx // 4, 40, 210)
    return (230, 220, 40 + gy // 4)

def alpha(x, w, start):
    """The alpha of column x: opaque left of `start`, then falling to 0 at the right edge."""
    return 255 if x < start else max(0, 255 - (x - start) * 255 // (w - start))

def rgba(x, y, w, h):
    """The (r, g, b, a) of pixel (x, y), the ramp starting a quarter of the way across."""
    return colour(x, y, w, h) + (alpha(x, w, w // 4),)

def chunk(kind, data):
    """One PNG chunk: length, type, data, CRC."""
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)

SIGNATURE = b'\x89PNG\r\n\x1a\n'

def ihdr(w, h, depth, colour_type):
    return chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, colour_type, 0, 0, 0))
