# Writes patch.png: a 16x16 opaque RGB picture of one colour, (230, 60, 40) (the colour tests'
# patch), optionally with an iCCP chunk holding the ICC file given. Usage: mkpatch.py [ICC_FILE]
import zlib, struct, sys
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
raw = b''.join(b'\x00' + bytes((230, 60, 40)) * 16 for _ in range(16))
extra = b''
if len(sys.argv) > 1:
    extra = chunk(b'iCCP', b'icc\x00\x00' + zlib.compress(open(sys.argv[1], 'rb').read()))
name = 'patch-icc.png' if extra else 'patch.png'
open(name, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0)) + extra
                       + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
