#!/usr/bin/env python3
"""Writes the files codec_limit and `webimage decode-bench` time, into OUT/tiff, OUT/bmp, OUT/ico.

usage: make_files.py OUT

One photo-like 1024x768 picture (smooth gradients, soft shapes, fine noise; seeded, so the files
are the same on every run with the same Pillow), saved the ways the decoders meet most:
TIFF 8-bit RGB (LZW, LZW with the predictor as the library writes it, Deflate, uncompressed,
JPEG, 256x256 tiles), 8-bit RGBA and 16-bit RGB (vips, since Pillow writes no 16-bit RGB TIFF);
BMP 24-bit, 32-bit with alpha, 8-bit palette; ICO with bitmap entries up to 256x256.
"""
import os
import random
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFilter

out = sys.argv[1]
for folder in ("tiff", "bmp", "ico"):
    os.makedirs(os.path.join(out, folder), exist_ok=True)

W, H = 1024, 768
rng = random.Random(15)
base = Image.linear_gradient("L").resize((W, H))
picture = Image.merge("RGB", (base, base.rotate(90).resize((W, H)), Image.radial_gradient("L").resize((W, H))))
draw = ImageDraw.Draw(picture)
for _ in range(40):
    x, y, r = rng.randrange(W), rng.randrange(H), rng.randrange(20, 160)
    draw.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
picture = picture.filter(ImageFilter.GaussianBlur(6))
noise = Image.effect_noise((W, H), 12).convert("RGB")
picture = Image.blend(picture, noise, 0.08)
alpha = Image.linear_gradient("L").rotate(45).resize((W, H))
rgba = picture.copy()
rgba.putalpha(alpha)

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
print(f"files written under {out}")
