#!/usr/bin/env bash
# Rebuilds the AVIF, HEIF and JPEG XL test fixtures in Tests/Fixtures/avif, heif and jxl with
# Debian 12's reference tools: avifenc/avifdec (libavif-bin 0.11.1), heif-enc/heif-convert
# (libheif-examples 1.15.1, whose HEVC encoder is x265), cjxl/djxl (libjxl-tools 0.7.0), gcc
# against libheif-dev for what heif-enc cannot write, and python3. The tests read the committed files; they never run this.
# AV1 and HEVC encoders may change their output between versions, so a rebuild may differ in
# bytes; the reference PNGs are rebuilt with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 "$here/tools/mkpng.py" 64 48
python3 "$here/tools/mkpng.py" 128 96
python3 "$here/tools/mkpng.py" 128 128
python3 "$here/tools/mkpng.py" 63 47
python3 "$here/tools/mkapng.py" 64 48
python3 "$here/tools/mkframes.py" 48 32 6
# The colour tests' patch, plain and with a Display P3 profile made by lcms2 (tools/p3icc.c).
gcc -O1 -o p3icc "$here/tools/p3icc.c" $(pkg-config --cflags --libs lcms2)
./p3icc
python3 "$here/tools/mkpatch.py"
python3 "$here/tools/mkpatch.py" test-display-p3.icc

mkdir -p avif/reference heif/reference
# AVIF: 8-bit 4:2:0, 10-bit 4:2:0, 12-bit 4:4:4, alpha, rotations and mirrors, a 2x2 grid and a
# three-frame sequence (avis).
avifenc -s 6 -y 420 --min 20 --max 24 rgb-64x48.png avif/still-8bit.avif
avifenc -s 6 -y 420 -d 10 --min 20 --max 24 rgb-64x48.png avif/still-10bit.avif
avifenc -s 6 -y 444 -d 12 --min 20 --max 24 rgb-64x48.png avif/still-12bit.avif
avifenc -s 6 --min 20 --max 24 rgba-64x48.png avif/alpha.avif
avifenc -s 6 --min 20 --max 24 --irot 1 rgb-64x48.png avif/irot1.avif
avifenc -s 6 --min 20 --max 24 --irot 3 --imir 1 rgb-64x48.png avif/irot3-imir1.avif
avifenc -s 6 --min 20 --max 24 --imir 0 rgb-64x48.png avif/imir0.avif
avifenc -s 8 --min 30 --max 34 -g 2x2 rgb-128x128.png avif/grid-2x2.avif
avifenc -s 8 --min 30 --max 34 --fps 10 rgb-64x48.png rgba-64x48.png rgb-64x48.png avif/sequence.avif
# Animated sequences: six 8-bit frames with alpha, 100/50/200/30/5/100 ms, a keyframe every
# two frames; three 10-bit frames turned by irot 1 and imir 0.
avifenc -s 8 --min 24 --max 28 -k 2 --timescale 1000 --duration 100 frame-0.png --duration 50 frame-1.png \
  --duration 200 frame-2.png --duration 30 frame-3.png --duration 5 frame-4.png --duration 100 frame-5.png \
  avif/animation.avif
avifenc -s 8 --min 24 --max 28 -d 10 --irot 1 --imir 0 --timescale 10 frame-0.png frame-2.png frame-4.png \
  avif/animation-10bit-irot.avif
# Colour: the patch tagged by nclx (Display P3, sRGB, BT.2020 with the BT.709 curve, BT.2020 PQ)
# and by an ICC profile.
q="-s 8 --min 2 --max 2 -y 444"
avifenc $q --cicp 12/13/6 patch.png avif/p3-nclx.avif
avifenc $q --cicp 1/13/6 patch.png avif/srgb-nclx.avif
avifenc $q --cicp 9/1/6 patch.png avif/bt2020-nclx.avif
avifenc $q --cicp 9/16/6 patch.png avif/pq-nclx.avif
avifenc $q --icc test-display-p3.icc patch.png avif/p3-icc.avif
avifenc $q --cicp 12/13/6 --timescale 10 patch.png patch.png patch.png avif/p3-nclx-sequence.avif
# avifdec is the reference for pixels (it decodes the first frame, and applies no irot/imir);
# heif-convert, which applies them, is the reference for the oriented files.
for f in still-8bit still-10bit still-12bit alpha grid-2x2 sequence; do
  avifdec -d 8 "avif/$f.avif" "avif/reference/$f.png"
done
# Each frame of the sequences (avifdec applies no irot/imir: the tests turn the references).
for i in 0 1 2 3 4 5; do avifdec -d 8 --index $i avif/animation.avif avif/reference/animation-$i.png; done
for i in 0 1 2; do avifdec -d 8 --index $i avif/animation-10bit-irot.avif avif/reference/animation-10bit-irot-$i.png; done
for f in irot1 irot3-imir1 imir0; do
  heif-convert "avif/$f.avif" "avif/reference/$f.png"
done

# HEIF: heif-enc for still, alpha, 10-bit, a thumbnail item and an odd size (written as a grid).
heif-enc -q 60 -o heif/still.heic rgb-64x48.png
heif-enc -q 60 -o heif/alpha.heic rgba-64x48.png
heif-enc -q 60 -b 10 -o heif/still-10bit.heic rgb16-64x48.png
heif-enc -q 60 -t 32 -o heif/thumbnail.heic rgb-128x96.png
heif-enc -q 60 -o heif/odd-grid.heic rgb-63x47.png
heif-enc -q 90 -L -p chroma=444 --premultiplied-alpha -o heif/premultiplied.heic rgba-64x48.png
heif-enc -q 90 -p chroma=444 -o heif/p3-icc.heic patch-icc.png
# libheif's API for the rest: irot/imir orientations, a thumbnail of another picture, the patch
# tagged by an nclx box (Display P3, sRGB).
gcc -O1 -o heifgen "$here/tools/heifgen.c" $(pkg-config --cflags --libs libheif)
(cd heif && ../heifgen)
# Damaged and re-branded copies of still.heic (same sizes, so no offsets move).
python3 "$here/tools/patch.py" heif/still.heic heif/missing-primary.heic pitm 999
python3 "$here/tools/patch.py" heif/still.heic heif/mif1-only.heif mif1,mif1,miaf,miaf
python3 "$here/tools/patch.py" heif/still.heic heif/unknown-brand.heic isom,isom,mp41,mp42
python3 "$here/tools/patch.py" heif/still.heic heif/hevc-with-avif-brand.avif avif,avif,mif1,miaf
for f in still alpha still-10bit thumbnail odd-grid orientation-6 orientation-7 marked-thumbnail premultiplied; do
  heif-convert "heif/$f.heic" "heif/reference/$f.png"
done
heif-convert heif/mif1-only.heif heif/reference/mif1-only.png

# JPEG XL: lossy (XYB) and lossless, alpha, 16-bit, the container, a four-frame animation (from
# an APNG). djxl is the reference, at the source's bit depth (djxl 0.7's --bits_per_sample=8
# writes 8-bit samples into a 16-bit PNG for a 16-bit source); the animation comes out as an APNG.
mkdir -p jxl/reference
cjxl -d 1 rgb-64x48.png jxl/still-lossy.jxl
cjxl -d 0 rgb-64x48.png jxl/still-lossless.jxl
cjxl -d 1 rgba-64x48.png jxl/alpha.jxl
cjxl -d 0 rgb16-64x48.png jxl/still-16bit.jxl
cjxl -d 1 --container=1 rgba-64x48.png jxl/container.jxl
cjxl -d 0 anim-64x48.apng jxl/animation.jxl
for f in still-lossy still-lossless alpha still-16bit container animation; do
  djxl "jxl/$f.jxl" "jxl/reference/$f.png"
done

rm -rf "$here/avif" "$here/heif" "$here/jxl"
cp -r avif heif jxl "$here/"
echo "fixtures written to $here/avif, $here/heif and $here/jxl"
