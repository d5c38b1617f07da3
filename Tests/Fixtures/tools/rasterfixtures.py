# Writes the TIFF, BMP and ICO fixtures Pillow can make, and what Pillow decodes each to (the
# references, as 8-bit RGBA PNG). Run by make-raster-fixtures.sh in an empty folder, which then
# derives more TIFFs with libtiff's tools and libvips.
import os, sys
from PIL import Image, ImageOps
import quadrants

W, H = 48, 32

def picture(w, h, alpha):
    # The quadrant picture of quadrants.py; opaque unless `alpha`.
    im = Image.new("RGBA", (w, h))
    for y in range(h):
        for x in range(w):
            r, g, b, a = quadrants.rgba(x, y, w, h)
            im.putpixel((x, y), (r, g, b, a if alpha else 255))
    return im

def reference(im, path):
    im = ImageOps.exif_transpose(im) if im.format == "TIFF" else im
    im.convert("RGBA").save(path)

os.makedirs("tiff/reference", exist_ok=True)
os.makedirs("bmp/reference", exist_ok=True)
os.makedirs("ico/reference", exist_ok=True)
rgba = picture(W, H, True)
rgb = picture(W, H, False).convert("RGB")
rgb.save("source-rgb.tif")  # uncompressed, for tiffcp

# TIFF: what Pillow writes (through libtiff), LZW unless said.
tiffs = {
    "rgb8": rgb,
    "rgba8": rgba,
    "gray8": rgb.convert("L"),
    "gray-alpha": rgba.convert("LA"),
    "gray1": rgb.convert("L").point(lambda v: 255 if v > 120 else 0).convert("1"),
    "palette8": rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=16),
    "cmyk": rgb.convert("CMYK"),
}
for name, im in tiffs.items():
    im.save(f"tiff/{name}.tif", compression="tiff_lzw")
rgb.save("tiff/rgb8-jpeg.tif", compression="jpeg", quality=90)
# 16-bit gray: a ramp over the whole range; its reference is each value /257, rounded.
g16 = Image.new("I;16", (W, H))
g16.putdata([(x * 1367 + y * 977) % 65536 for y in range(H) for x in range(W)])
g16.save("tiff/gray16.tif", compression="tiff_lzw")
ref16 = Image.new("L", (W, H))
ref16.putdata([(v + 128) // 257 for v in g16.getdata()])
ref16.convert("RGBA").save("tiff/reference/gray16.png")
for name in list(tiffs) + ["rgb8-jpeg"]:
    reference(Image.open(f"tiff/{name}.tif"), f"tiff/reference/{name}.png")

# BMP: what Pillow writes.
bmps = {"rgb24": rgb, "rgba32": rgba, "palette8": tiffs["palette8"], "gray8": rgb.convert("L"), "mono1": tiffs["gray1"]}
for name, im in bmps.items():
    im.save(f"bmp/{name}.bmp")
    reference(Image.open(f"bmp/{name}.bmp"), f"bmp/reference/{name}.png")

# ICO: three entries of distinct pictures (16, 32 and 48 pixels), as PNG entries (Pillow's
# default) and as bitmap entries; the references are each entry as Pillow decodes it.
entries = [picture(s, s, True).rotate(90 * i) for i, s in enumerate((16, 32, 48))]
for name, extra in (("png-entries", {}), ("bmp-entries", {"bitmap_format": "bmp"})):
    entries[2].save(f"ico/{name}.ico", sizes=[(16, 16), (32, 32), (48, 48)], append_images=entries[:2], **extra)
    for s in (16, 32, 48):
        im = Image.open(f"ico/{name}.ico")
        im.size = (s, s)
        reference(im, f"ico/reference/{name}-{s}.png")
