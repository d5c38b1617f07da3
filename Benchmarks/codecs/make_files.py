#!/usr/bin/env python3
"""Writes the files codec_limit and `webimage decode-bench` time, into OUT/tiff, OUT/bmp, OUT/ico,
OUT/avif, OUT/heic and OUT/heic-large.

usage: make_files.py OUT

One photo-like 1024x768 picture (smooth gradients, soft shapes, fine noise; seeded, so the files
are the same on every run with the same Pillow), saved the ways the decoders meet most:
TIFF 8-bit RGB (LZW, LZW with the predictor as the library writes it, Deflate, uncompressed,
JPEG, 256x256 tiles), 8-bit RGBA and 16-bit RGB (vips, since Pillow writes no 16-bit RGB TIFF);
BMP 24-bit, 32-bit with alpha, 8-bit palette; ICO with bitmap entries up to 256x256.
With Debian's libavif-bin and libheif-examples (benchmarking only; the tests do not use them):
AVIF by avifenc (libaom, speed 6, quantizer 4-10): 8-bit 4:2:0, 8-bit 4:4:4, 10-bit 4:2:0 and
8-bit 4:2:0 with alpha; HEIC by heif-enc (x265, quality 70): 8-bit 4:2:0, 10-bit (from a
16-bit PNG) and 8-bit with alpha, no thumbnails; and in OUT/heic-large one 4000x3000 HEIC of the
same kind of picture with a 320x240 thumbnail item (heif-enc -t 320).
"""
import os
import random
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFilter

out = sys.argv[1]
for folder in ("tiff", "bmp", "ico", "avif", "heic", "heic-large"):
    os.makedirs(os.path.join(out, folder), exist_ok=True)



def photo(W, H, shapes=40):
    """Smooth gradients, soft shapes and fine noise (seeded) at W x H, and the same with an alpha ramp."""
    rng = random.Random(15)
    scale = W / 1024
    base = Image.linear_gradient("L").resize((W, H))
    picture = Image.merge("RGB", (base, base.rotate(90).resize((W, H)), Image.radial_gradient("L").resize((W, H))))
    draw = ImageDraw.Draw(picture)
    for _ in range(shapes):
        x, y, r = rng.randrange(W), rng.randrange(H), int(rng.randrange(20, 160) * scale)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    picture = picture.filter(ImageFilter.GaussianBlur(6 * scale))
    noise = Image.effect_noise((W, H), 12).convert("RGB")
    picture = Image.blend(picture, noise, 0.08)
    alpha = Image.linear_gradient("L").rotate(45).resize((W, H))
    rgba = picture.copy()
    rgba.putalpha(alpha)
    return picture, rgba


W, H = 1024, 768
picture, rgba = photo(W, H)

t = lambda name: os.path.join(out, "tiff", name)
picture.save(t("rgb8-lzw.tif"), compression="tiff_lzw")
picture.save(t("rgb8-lzw-predictor.tif"), compression="tiff_lzw", tiffinfo={317: 2})
picture.save(t("rgb8-deflate.tif"), compression="tiff_adobe_deflate")
picture.save(t("rgb8-none.tif"))
picture.save(t("rgb8-jpeg.tif"), compression="jpeg", quality=85)
rgba.save(t("rgba8-lzw.tif"), compression="tiff_lzw")
subprocess.run(["tiffcp", "-c", "lzw", "-t", "-w", "256", "-l", "256", t("rgb8-none.tif"), t("rgb8-tiled.tif")], check=True)
subprocess.run(["vips", "cast", t("rgb8-none.tif"), t("rgb16.v"), "ushort", "--shift"], check=True)
subprocess.run(["vips", "tiffsave", t("rgb16.v"), t("rgb16-lzw.tif"), "--compression", "lzw"], check=True)
os.remove(t("rgb16.v"))

b = lambda name: os.path.join(out, "bmp", name)
picture.save(b("rgb24.bmp"))
rgba.save(b("rgba32.bmp"))
picture.quantize(256).save(b("palette8.bmp"))

icon = rgba.resize((256, 256), Image.LANCZOS)
icon.save(os.path.join(out, "ico", "bitmap-256.ico"), sizes=[(16, 16), (32, 32), (48, 48), (256, 256)], bitmap_format="bmp")

# AVIF and HEIC from PNG sources (a 16-bit PNG for the 10-bit HEIC: heif-enc takes the depth
# from its input).
src = os.path.join(out, "src")
os.makedirs(src, exist_ok=True)
png8, png_alpha, png16 = (os.path.join(src, n) for n in ("rgb8.png", "rgba8.png", "rgb16.png"))
picture.save(png8)
rgba.save(png_alpha)
subprocess.run(["vips", "cast", png8, png16 + ".1.v", "ushort", "--shift"], check=True)
subprocess.run(["vips", "copy", png16 + ".1.v", png16 + ".2.v", "--interpretation", "rgb16"], check=True)
subprocess.run(["vips", "pngsave", png16 + ".2.v", png16], check=True)
os.remove(png16 + ".1.v")
os.remove(png16 + ".2.v")
run = lambda *args: subprocess.run(list(args), check=True, stdout=subprocess.DEVNULL)
a = lambda name: os.path.join(out, "avif", name)
avifenc = ["avifenc", "--speed", "6", "--min", "4", "--max", "10", "--jobs", "2"]
run(*avifenc, "--yuv", "420", "--depth", "8", png8, a("yuv420-8bit.avif"))
run(*avifenc, "--yuv", "444", "--depth", "8", png8, a("yuv444-8bit.avif"))
run(*avifenc, "--yuv", "420", "--depth", "10", png8, a("yuv420-10bit.avif"))
run(*avifenc, "--yuv", "420", "--depth", "8", png_alpha, a("yuv420-8bit-alpha.avif"))
h = lambda name: os.path.join(out, "heic", name)
run("heif-enc", "-q", "70", png8, "-o", h("yuv420-8bit.heic"))
run("heif-enc", "-q", "70", "-b", "10", png16, "-o", h("yuv420-10bit.heic"))
run("heif-enc", "-q", "70", png_alpha, "-o", h("yuv420-8bit-alpha.heic"))
large, _ = photo(4000, 3000, shapes=60)
png_large = os.path.join(src, "large.png")
large.save(png_large)
run("heif-enc", "-q", "70", "-t", "320", png_large, "-o", os.path.join(out, "heic-large", "4000x3000-thumb320.heic"))
print(f"files written under {out}")
