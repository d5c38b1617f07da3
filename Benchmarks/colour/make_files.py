#!/usr/bin/env python3
"""Writes the colour benchmark's JPEGs: one 1024x768 picture (the micro benchmarks' fallback
pattern) at quality 85, untagged, tagged sRGB and tagged Display P3, one folder each.

Usage: make_files.py OUT_DIR P3_ICC   (P3_ICC from Tests/Fixtures/tools/p3icc.c; needs Pillow)
"""
import io
import os
import sys

from PIL import Image, ImageCms


def picture(width=1024, height=768):
    data = bytearray(width * height * 3)
    for y in range(height):
        for x in range(width):
            i = (y * width + x) * 3
            data[i] = ((x * 3) ^ y) & 0xFF
            data[i + 1] = (y * 2) & 0xFF
            data[i + 2] = ((x ^ y) * 5) & 0xFF
    return Image.frombytes("RGB", (width, height), bytes(data))


def main():
    out, p3_path = sys.argv[1], sys.argv[2]
    with open(p3_path, "rb") as f:
        p3 = f.read()
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    image = picture()
    for name, icc in (("untagged", None), ("srgb", srgb), ("p3", p3)):
        os.makedirs(os.path.join(out, name), exist_ok=True)
        buffer = io.BytesIO()
        extra = {"icc_profile": icc} if icc else {}
        image.save(buffer, "JPEG", quality=85, **extra)
        with open(os.path.join(out, name, "picture.jpg"), "wb") as f:
            f.write(buffer.getvalue())
        print(name, len(buffer.getvalue()), "bytes")


if __name__ == "__main__":
    main()
