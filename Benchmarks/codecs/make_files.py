#!/usr/bin/env python3
"""Writes the files codec_limit and `webimage decode-bench` time, into OUT/tiff, OUT/bmp, OUT/ico,
OUT/avif, OUT/heic, OUT/heic-large and OUT/svg.

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
same kind of picture with a 320x240 thumbnail item (heif-enc -t 320). SVG (written here, seeded):
a 512x512 icon (paths, a linear gradient, strokes), a 1024x768 illustration (300 shapes with
opacity, radial gradients) and an 800x600 chart given by its viewBox alone (polylines, dashed
strokes, rounded rectangles); no text, so no font lookup enters the timing.
"""
import os
import random
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFilter

out = sys.argv[1]
for folder in ("tiff", "bmp", "ico", "avif", "heic", "heic-large", "svg"):
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

def svg_files():
    rnd = random.Random(7)
    def colour():
        return "#%02x%02x%02x" % (rnd.randrange(256), rnd.randrange(256), rnd.randrange(256))
    icon = ['<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 64 64">',
            '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">'
            '<stop offset="0" stop-color="#3a7bd5"/><stop offset="1" stop-color="#00d2ff"/></linearGradient></defs>',
            '<rect x="4" y="4" width="56" height="56" rx="12" fill="url(#g)"/>',
            '<path d="M20 44 L32 16 L44 44 Z" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/>',
            '<circle cx="32" cy="36" r="5" fill="#fff" fill-opacity="0.8"/></svg>']
    art = ['<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="768">', "<defs>"]
    for i in range(8):
        art.append(f'<radialGradient id="r{i}"><stop offset="0" stop-color="{colour()}"/>'
                   f'<stop offset="1" stop-color="{colour()}" stop-opacity="0.2"/></radialGradient>')
    art.append('</defs><rect width="1024" height="768" fill="#f4efe6"/>')
    for _ in range(300):
        kind = rnd.randrange(3)
        if kind == 0:
            art.append(f'<circle cx="{rnd.randrange(1024)}" cy="{rnd.randrange(768)}" r="{rnd.randrange(8, 90)}" '
                       f'fill="url(#r{rnd.randrange(8)})" fill-opacity="{rnd.uniform(0.3, 0.9):.2f}"/>')
        elif kind == 1:
            points = " ".join(f"{rnd.randrange(1024)},{rnd.randrange(768)}" for _ in range(rnd.randrange(3, 7)))
            art.append(f'<polygon points="{points}" fill="{colour()}" fill-opacity="{rnd.uniform(0.2, 0.7):.2f}"/>')
        else:
            x, y = rnd.randrange(1024), rnd.randrange(768)
            art.append(f'<path d="M{x} {y} C {x + rnd.randrange(-200, 200)} {y + rnd.randrange(-200, 200)}, '
                       f'{x + rnd.randrange(-200, 200)} {y + rnd.randrange(-200, 200)}, {rnd.randrange(1024)} '
                       f'{rnd.randrange(768)}" fill="none" stroke="{colour()}" stroke-width="{rnd.randrange(1, 9)}"/>')
    art.append("</svg>")
    chart = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 600">', '<rect width="800" height="600" fill="#fff"/>']
    for i in range(11):
        chart.append(f'<line x1="40" y1="{40 + i * 50}" x2="780" y2="{40 + i * 50}" stroke="#ddd" stroke-dasharray="4 3"/>')
    for series in range(4):
        points = " ".join(f"{40 + x * 10},{rnd.randrange(60, 560)}" for x in range(75))
        chart.append(f'<polyline points="{points}" fill="none" stroke="{colour()}" stroke-width="2"/>')
    for bar in range(24):
        height = rnd.randrange(20, 300)
        chart.append(f'<rect x="{50 + bar * 30}" y="{560 - height}" width="20" height="{height}" rx="4" '
                     f'fill="{colour()}" fill-opacity="0.5"/>')
    chart.append("</svg>")
    for name, lines in (("icon-512.svg", icon), ("illustration-1024x768.svg", art), ("chart-viewbox-800x600.svg", chart)):
        with open(os.path.join(out, "svg", name), "w") as f:
            f.write("\n".join(lines) + "\n")


svg_files()
print(f"files written under {out}")
