#!/usr/bin/env bash
# Rebuilds the TIFF, BMP and ICO test fixtures (Tests/Fixtures/tiff, bmp, ico) with reference
# tools: Pillow (python3, through libtiff), libtiff's tiffcp/tiffset (libtiff-tools 4.5) and
# libvips 8.14 (pyramids). The tests read the committed files; they never run this.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 "$here/tools/rasterfixtures.py"
src=source-rgb.tif
# Layouts libtiff's own copier writes, each the same pixels as rgb8.tif (reference/rgb8.png).
tiffcp -c zip -p separate "$src" tiff/rgb8-planar.tif
tiffcp -c lzw -t -w 16 -l 16 "$src" tiff/rgb8-tiled.tif
tiffcp -c zip -t -w 16 -l 16 -p separate "$src" tiff/rgb8-tiled-planar.tif
tiffcp -c lzw -8 "$src" tiff/rgb8-bigtiff.tif
tiffcp -c none -B "$src" tiff/rgb8-bigendian.tif
tiffcp -c packbits -r 3 "$src" tiff/rgb8-packbits.tif
# JPEG-in-TIFF as YCbCr 2x2 (tiffcp's default for JPEG), decoded by libjpeg either way.
tiffcp -c jpeg:90 "$src" tiff/ycbcr-jpeg.tif
# The Orientation tag on a copy; the reference is Pillow's decode turned by exif_transpose.
for o in 3 6 8; do
  tiffcp -c lzw "$src" "tiff/orientation-$o.tif"
  tiffset -s 274 "$o" "tiff/orientation-$o.tif"
done
python3 - <<'PY'
from PIL import Image, ImageOps
for o in (3, 6, 8):
    ImageOps.exif_transpose(Image.open(f"tiff/orientation-{o}.tif")).convert("RGBA").save(f"tiff/reference/orientation-{o}.png")
PY
# Pyramids by libvips: reduced levels as further directories, and as SubIFDs.
vips resize "$src" big.v 4
vips tiffsave big.v tiff/pyramid.tif --pyramid --tile --tile-width 64 --tile-height 64 --compression jpeg --Q 85
vips tiffsave big.v tiff/pyramid-subifd.tif --pyramid --subifd --tile --tile-width 64 --tile-height 64 --compression jpeg --Q 85

# A CMYK JPEG sampled 2x2,1x1,1x1,1x1 (Pillow's 4:2:0 for CMYK), which TurboJPEG's header call refuses.
mkdir -p jpeg
python3 "$here/tools/cmykjpeg.py" jpeg

rm -rf "$here/tiff" "$here/bmp" "$here/ico" "$here/jpeg"
cp -r tiff bmp ico jpeg "$here/"
echo "fixtures written to $here/tiff, $here/bmp, $here/ico and $here/jpeg"
