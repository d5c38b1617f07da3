"""Writes jpeg/cmyk-420.jpg: a 32x16 CMYK JPEG (Adobe-inverted, as Pillow writes CMYK) whose
components are sampled 2x2, 1x1, 1x1, 1x1, a layout TurboJPEG's header call has no name for.
Quadrants: full cyan, full magenta, full yellow, 200/255 black. Usage: cmykjpeg.py OUTDIR"""
import sys
from PIL import Image

im = Image.new("CMYK", (32, 16))
px = im.load()
inks = [(255, 0, 0, 0), (0, 255, 0, 0), (0, 0, 255, 0), (0, 0, 0, 200)]
for y in range(16):
    for x in range(32):
        px[x, y] = inks[(x >= 16) + 2 * (y >= 8)]
im.save(f"{sys.argv[1]}/cmyk-420.jpg", quality=95, subsampling=2)
