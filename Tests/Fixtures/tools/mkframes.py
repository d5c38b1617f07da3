# Writes frame-N.png (N = 0 ..< COUNT): WxH RGBA frames of the mkpng.py picture, each shifted
# further right (wrapping) with the alpha ramp kept in place, so every frame differs; the source
# of the AVIF sequence fixtures. Usage: mkframes.py WIDTH HEIGHT COUNT (files land in the current folder).
import zlib, sys
from quadrants import colour, alpha, chunk, ihdr, SIGNATURE
w, h, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    shift = i * w // count
    raw = b''.join(b'\x00' + bytes(v for x in range(w) for v in colour((x - shift) % w, y, w, h) + (alpha(x, w, w // 2),)) for y in range(h))
    open(f'frame-{i}.png', 'wb').write(SIGNATURE + ihdr(w, h, 8, 6) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
