#!/usr/bin/env bash
# Builds the libFuzzer targets and the seed-corpus generator into Fuzz/build/.
#
# The codec targets do not build the package (AsyncHTTPClient and friends under sanitizers would
# take ages): the image layer (Sources/WebImageCodecs, which depends on nothing but the C codec
# libraries) is compiled once, with -sanitize=fuzzer,address, into a static WebImageCodecs module,
# and each target links it with the system codec libraries. The key -> file-name target needs swift-crypto's MD5, so it is
# a tiny SwiftPM package (Fuzz/FileName) built with the same sanitizer flags. The request-target target (URL parser and
# job planner) needs swift-crypto for signatures and the image layer, so it is a tiny SwiftPM package too (Fuzz/Request)
# that links the same prebuilt image-layer archive.
#
# Usage: Fuzz/build.sh [target...]   (default: every target, plus the seed generator)
#        Fuzz/build.sh typecheck       (only type-checks the image layer on its own, no output;
#                                       FuzzSourceListTests runs it)
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
SWIFT=${SWIFT:-swift}
OUT=Fuzz/build

CODEC_TARGETS=(sniff jpeg png gif webp svg avif heif jxl tiff bmpico incremental icc)
ALL_TARGETS=("${CODEC_TARGETS[@]}" filename request)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${ALL_TARGETS[@]}" seeds)

C_MODULES=(-I Sources/CTurboJPEG -I Sources/CSPNG -I Sources/CWebP -I Sources/CGIF -I Sources/CRSVG -I Sources/CLCMS2 -I Sources/CMatrixShaper/include -I Sources/CResample/include -I Sources/CJPEGRows/include -I Sources/CAVIF -I Sources/CHEIF -I Sources/CJXL -I Sources/CTIFF -I Sources/CGdkPixbuf)
C_LIBS=(-lturbojpeg -ljpeg -lspng -lwebp -lwebpdemux -lwebpmux -lgif -llcms2 -lavif -lheif -ljxl -ltiff)
# Libraries whose headers live in their own folders (librsvg's and gdk-pixbuf's need glib's, librsvg's cairo's): their
# pkg-config include paths go to clang, their libraries to the linker.
for package in librsvg-2.0 gdk-pixbuf-2.0; do
  for flag in $(pkg-config --cflags-only-I "$package"); do C_MODULES+=(-Xcc "$flag"); done
  read -r -a libs <<< "$(pkg-config --libs "$package")"
  C_LIBS+=("${libs[@]}")
done
mapfile -t LIBRARY_SOURCES < <(find Sources/WebImageCodecs -name '*.swift' | sort)
# The image layer's own C (CMatrixShaper, CResample, CJPEGRows), compiled into the same archive.
mapfile -t LIBRARY_C_SOURCES < <(find Sources/CMatrixShaper Sources/CResample Sources/CJPEGRows -name '*.c' | sort)
SANITIZE=(-sanitize=fuzzer,address)

# The library module, rebuilt only when a source is newer than the archive.
# $1 = output folder, $2 = clang's sanitizer flag (or ""), rest = extra swiftc flags.
build_library() {
  local dir=$1 csanitize=$2; shift 2
  local archive=$dir/libWebImageCodecs.a partial=$dir/libWebImageCodecs.partial.a
  mkdir -p "$dir"
  if [ -f "$archive" ] && [ -z "$(find "${LIBRARY_SOURCES[@]}" "${LIBRARY_C_SOURCES[@]}" -newer "$archive" | head -1)" ]; then
    return
  fi
  echo "fuzz: compiling the image layer (WebImageCodecs) into $dir" >&2
  "$SWIFTC" -parse-as-library -package-name WebImage -module-name WebImageCodecs -O -wmo -swift-version 6 "$@" \
    -emit-library -static -o "$partial" \
    -emit-module -emit-module-path "$dir/WebImageCodecs.swiftmodule" \
    "${C_MODULES[@]}" "${LIBRARY_SOURCES[@]}"
  local source object
  for source in "${LIBRARY_C_SOURCES[@]}"; do
    object=$dir/$(basename "$source" .c).o
    "${CC:-clang}" -O2 ${csanitize:+"$csanitize"} -I Sources/CMatrixShaper/include -I Sources/CResample/include -I Sources/CJPEGRows/include -c "$source" -o "$object"
    ar rs "$partial" "$object"
  done
  # In place only once whole: an interrupted build leaves no archive that looks up to date.
  mv "$partial" "$archive"
}

build_codec_target() {
  local name=$1
  echo "fuzz: linking fuzz-$name" >&2
  "$SWIFTC" -parse-as-library -O -swift-version 6 "${SANITIZE[@]}" -module-name "Fuzz_$name" \
    -I "$OUT/lib" "${C_MODULES[@]}" \
    Fuzz/Support/*.swift "Fuzz/Targets/$name.swift" \
    "$OUT/lib/libWebImageCodecs.a" "${C_LIBS[@]}" -use-ld=lld -o "$OUT/fuzz-$name"
}

build_filename_target() {
  echo "fuzz: building fuzz-filename (SwiftPM package Fuzz/FileName)" >&2
  mkdir -p "$OUT"
  "$SWIFT" build --package-path Fuzz/FileName -c debug \
    -Xswiftc -sanitize=fuzzer,address
  cp "$(${SWIFT} build --package-path Fuzz/FileName -c debug --show-bin-path)/FuzzFileName" "$OUT/fuzz-filename"
}

# The server's URL parser and planner (symlinked into Fuzz/Request) on the fuzz-built image layer.
build_request_target() {
  build_library "$OUT/lib" -fsanitize=fuzzer-no-link,address "${SANITIZE[@]}"
  echo "fuzz: building fuzz-request (SwiftPM package Fuzz/Request)" >&2
  local root=$PWD flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -I -Xswiftc "$PWD/$OUT/lib") flag
  # The C modules the image layer's interface names, and its archive and libraries at link time.
  for flag in "${C_MODULES[@]}"; do
    case $flag in Sources/*) flags+=(-Xswiftc "$root/$flag") ;; *) flags+=(-Xswiftc "$flag") ;; esac
  done
  flags+=(-Xlinker "$root/$OUT/lib/libWebImageCodecs.a")
  for flag in "${C_LIBS[@]}"; do flags+=(-Xlinker "$flag"); done
  "$SWIFT" build --package-path Fuzz/Request -c debug "${flags[@]}"
  cp "$(${SWIFT} build --package-path Fuzz/Request -c debug --show-bin-path)/FuzzRequest" "$OUT/fuzz-request"
}

build_seed_generator() {
  build_library "$OUT/seeds-lib" ""
  echo "fuzz: linking the seed-corpus generator" >&2
  "$SWIFTC" -parse-as-library -O -swift-version 6 -module-name SeedCorpus \
    -I "$OUT/seeds-lib" "${C_MODULES[@]}" Fuzz/Seeds/*.swift \
    "$OUT/seeds-lib/libWebImageCodecs.a" "${C_LIBS[@]}" -o "$OUT/seed-corpus"
}

# Fails (with the compiler's errors) when the image layer no longer compiles on its own with
# these flags (the fuzz build's way of compiling it outside SwiftPM).
typecheck_library() {
  "$SWIFTC" -typecheck -wmo -parse-as-library -package-name WebImage -module-name WebImageCodecs -swift-version 6 \
    "${C_MODULES[@]}" "${LIBRARY_SOURCES[@]}"
}

for target in "${targets[@]}"; do
  case $target in
    typecheck) typecheck_library ;;
    seeds) build_seed_generator ;;
    filename) build_filename_target ;;
    request) build_request_target ;;
    *)
      [ -f "Fuzz/Targets/$target.swift" ] || { echo "fuzz: no target '$target'" >&2; exit 2; }
      build_library "$OUT/lib" -fsanitize=fuzzer-no-link,address "${SANITIZE[@]}"
      build_codec_target "$target"
      ;;
  esac
done
