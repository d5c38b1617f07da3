// The C limit for the TIFF, BMP, ICO, AVIF, HEIC and SVG decoders: the library calls the coders make,
// in a plain C loop, on files read into memory first, each image decoded into a fresh RGBA8 buffer.
//
//   tiff: TIFFClientOpen over the bytes (read/seek/size/map procedures, as the coder's), then
//         TIFFReadEncodedStrip (or TIFFReadEncodedTile) and a loop widening RGB or gray to
//         RGBA8 (16-bit samples rounded), the coder's path for 8/16-bit chunky files.
//   tiff-rgba: the same open, then libtiff's TIFFReadRGBAImageOriented (for comparison).
//   bmp, ico: gdk_pixbuf_loader_new_with_type, write, close, and the rows copied to RGBA8.
//   avif: libavif decoder (maxThreads 1, Exif and XMP ignored, strict checks off, as the coder's)
//         over the bytes with avifDecoderSetIOMemory, avifDecoderParse, avifDecoderNextImage, then
//         avifImageYUVToRGB into RGBA8 (unpremultiplied; libyuv for 8-bit images, libavif's own
//         rounding conversion for deeper ones: avoidLibYUV, as AVIFPixels sets it).
//   heic: libheif context read from memory without a copy, the primary image handle,
//         heif_decode_image to interleaved RGBA (deeper samples to 8 bits), rows copied out.
//   heic-thumb: libheif's thumbnail path for a thumbnail fitting SIZE x SIZE (aspect kept): the
//         primary handle's thumbnail IDs, the smallest thumbnail whose size covers the target
//         (the primary image when none does), decoded to interleaved RGBA, scaled to the target
//         with heif_image_scale_image (libheif's own scaler: nearest neighbour) and the rows
//         copied out.
//   svg: librsvg handle from the bytes (rsvg_handle_new_from_data, 96 DPI), the intrinsic size in
//         pixels (else the viewBox, else 512x512), a zeroed buffer under a cairo ARGB32 surface,
//         rsvg_handle_render_document scaled to that size, and the premultiplied BGRA turned
//         into straight RGBA in place, as the SVG coder does.
//
//   codec_limit MODE DIR [REPS] [SIZE]   prints {"subject":"c-MODE","images":N,"seconds":S,"ms_per_image":M}
//
// The loop's memory is kept by the allocator between images (no mmap per buffer, no trimming):
// without that, every image's buffers are fresh pages from the kernel, a page fault each 4 KiB,
// which made this loop slower than the library (whose decodes run on a thread arena that keeps
// its memory) and so no limit at all.
//
// Build: cc -O2 -o codec_limit codec_limit.c $(pkg-config --cflags --libs libtiff-4 gdk-pixbuf-2.0 libavif libheif librsvg-2.0)
#include <avif/avif.h>
#include <dirent.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <libheif/heif.h>
#include <librsvg/rsvg.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tiffio.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

struct file { unsigned char *bytes; size_t size; };

static struct file read_file(const char *path) {
    struct file f = {0};
    FILE *in = fopen(path, "rb");
    if (!in) { perror(path); exit(1); }
    fseek(in, 0, SEEK_END);
    f.size = (size_t)ftell(in);
    fseek(in, 0, SEEK_SET);
    f.bytes = malloc(f.size);
    if (fread(f.bytes, 1, f.size, in) != f.size) { perror(path); exit(1); }
    fclose(in);
    return f;
}

// --- libtiff from memory --------------------------------------------------------------------

struct stream { const unsigned char *bytes; size_t size, position; };

static tmsize_t s_read(thandle_t h, void *buf, tmsize_t n) {
    struct stream *s = h;
    size_t left = s->size - s->position, k = (size_t)n < left ? (size_t)n : left;
    memcpy(buf, s->bytes + s->position, k);
    s->position += k;
    return (tmsize_t)k;
}
static tmsize_t s_write(thandle_t h, void *buf, tmsize_t n) { (void)h; (void)buf; (void)n; return -1; }
static toff_t s_seek(thandle_t h, toff_t off, int whence) {
    struct stream *s = h;
    int64_t base = whence == SEEK_CUR ? (int64_t)s->position : whence == SEEK_END ? (int64_t)s->size : 0;
    int64_t to = base + (int64_t)off;
    if (to < 0) return (toff_t)-1;
    s->position = (size_t)to;
    return (toff_t)to;
}
static int s_close(thandle_t h) { (void)h; return 0; }
static toff_t s_size(thandle_t h) { return ((struct stream *)h)->size; }
static int s_map(thandle_t h, void **base, toff_t *size) {
    struct stream *s = h;
    *base = (void *)s->bytes;
    *size = s->size;
    return 1;
}
static void s_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }
static int quiet(TIFF *t, void *u, const char *m, const char *f, va_list a) {
    (void)t; (void)u; (void)m; (void)f; (void)a;
    return 1;
}

static TIFF *open_memory(struct stream *s, TIFFOpenOptions *opts) {
    return TIFFClientOpenExt("memory", "rO", s, s_read, s_write, s_seek, s_close, s_size, s_map, s_unmap, opts);
}

// Samples (8 or 16 bits, `spp` per pixel: gray, gray + alpha, RGB, RGBA) to RGBA8, 16-bit rounded;
// one tight loop per layout, as a hand-written C decoder would have.
static inline unsigned char r16(uint16_t v) { return (unsigned char)((v + 128u) / 257u); }

static void widen(const unsigned char *src, unsigned char *dst, size_t pixels, int spp, int bits) {
    if (bits == 8 && spp == 3) {
        for (size_t i = 0; i < pixels; i++, src += 3, dst += 4) { dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]; dst[3] = 255; }
    } else if (bits == 8 && spp == 4) {
        memcpy(dst, src, pixels * 4);
    } else if (bits == 8 && spp == 1) {
        for (size_t i = 0; i < pixels; i++, dst += 4) { dst[0] = dst[1] = dst[2] = src[i]; dst[3] = 255; }
    } else if (bits == 16) {
        const uint16_t *s = (const uint16_t *)src;
        for (size_t i = 0; i < pixels; i++, s += spp, dst += 4) {
            if (spp >= 3) { dst[0] = r16(s[0]); dst[1] = r16(s[1]); dst[2] = r16(s[2]); dst[3] = spp == 4 ? r16(s[3]) : 255; }
            else { dst[0] = dst[1] = dst[2] = r16(s[0]); dst[3] = spp == 2 ? r16(s[1]) : 255; }
        }
    } else {
        for (size_t i = 0; i < pixels; i++, src += spp, dst += 4) { dst[0] = dst[1] = dst[2] = src[0]; dst[3] = src[1]; }
    }
}

static void decode_tiff(const struct file *f, int rgba_interface) {
    struct stream s = {f->bytes, f->size, 0};
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    TIFFOpenOptionsSetErrorHandlerExtR(opts, quiet, NULL);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, quiet, NULL);
    TIFF *tif = open_memory(&s, opts);
    if (!tif) { fprintf(stderr, "cannot open\n"); exit(1); }
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bits = 8, photometric = 0, compression = 1;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    unsigned char *out = malloc((size_t)w * h * 4);
    if (rgba_interface) {
        if (!TIFFReadRGBAImageOriented(tif, w, h, (uint32_t *)out, ORIENTATION_TOPLEFT, 0)) { fprintf(stderr, "rgba failed\n"); exit(1); }
    } else if (TIFFIsTiled(tif)) {
        uint32_t tw = 0, tl = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &tl);
        if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        size_t px = (size_t)spp * bits / 8;
        unsigned char *tile = malloc((size_t)TIFFTileSize(tif));
        unsigned char *band = malloc((size_t)tl * w * px);
        for (uint32_t y = 0; y < h; y += tl) {
            uint32_t rows = h - y < tl ? h - y : tl;
            for (uint32_t x = 0; x < w; x += tw) {
                uint32_t cols = w - x < tw ? w - x : tw;
                if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, 0), tile, -1) < 0) { fprintf(stderr, "tile failed\n"); exit(1); }
                for (uint32_t r = 0; r < rows; r++) memcpy(band + ((size_t)r * w + x) * px, tile + (size_t)r * tw * px, cols * px);
            }
            widen(band, out + (size_t)y * w * 4, (size_t)rows * w, spp, bits);
        }
        free(band);
        free(tile);
    } else {
        if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        uint32_t rps = h;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps > h) rps = h;
        tmsize_t line = TIFFScanlineSize(tif);
        unsigned char *strip = malloc((size_t)TIFFStripSize(tif));
        for (uint32_t y = 0, i = 0; y < h; y += rps, i++) {
            uint32_t rows = h - y < rps ? h - y : rps;
            if (TIFFReadEncodedStrip(tif, i, strip, -1) < 0) { fprintf(stderr, "strip failed\n"); exit(1); }
            for (uint32_t r = 0; r < rows; r++)
                widen(strip + (size_t)r * line, out + ((size_t)(y + r)) * w * 4, w, spp, bits);
        }
        free(strip);
    }
    free(out);
    TIFFClose(tif);
    TIFFOpenOptionsFree(opts);
}

// --- gdk-pixbuf ------------------------------------------------------------------------------

static void decode_pixbuf(const struct file *f, const char *type) {
    GError *error = NULL;
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new_with_type(type, &error);
    if (!loader || !gdk_pixbuf_loader_write(loader, f->bytes, f->size, &error) || !gdk_pixbuf_loader_close(loader, &error)) {
        fprintf(stderr, "gdk-pixbuf: %s\n", error ? error->message : "?");
        exit(1);
    }
    GdkPixbuf *pixbuf = gdk_pixbuf_loader_get_pixbuf(loader);
    int w = gdk_pixbuf_get_width(pixbuf), h = gdk_pixbuf_get_height(pixbuf);
    int n = gdk_pixbuf_get_n_channels(pixbuf), stride = gdk_pixbuf_get_rowstride(pixbuf);
    const guint8 *pixels = gdk_pixbuf_read_pixels(pixbuf);
    unsigned char *out = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++) {
        const guint8 *from = pixels + (size_t)y * stride;
        unsigned char *to = out + (size_t)y * w * 4;
        if (n == 4) memcpy(to, from, (size_t)w * 4);
        else for (int x = 0; x < w; x++) { to[x * 4] = from[x * 3]; to[x * 4 + 1] = from[x * 3 + 1]; to[x * 4 + 2] = from[x * 3 + 2]; to[x * 4 + 3] = 255; }
    }
    free(out);
    g_object_unref(loader);
}

// --- libavif ---------------------------------------------------------------------------------

static void decode_avif(const struct file *f) {
    avifDecoder *decoder = avifDecoderCreate();
    decoder->maxThreads = 1;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->ignoreXMP = AVIF_TRUE;
    decoder->strictFlags = AVIF_STRICT_DISABLED;
    if (avifDecoderSetIOMemory(decoder, f->bytes, f->size) != AVIF_RESULT_OK || avifDecoderParse(decoder) != AVIF_RESULT_OK ||
        avifDecoderNextImage(decoder) != AVIF_RESULT_OK) {
        fprintf(stderr, "avif: %s\n", decoder->diag.error);
        exit(1);
    }
    avifImage *image = decoder->image;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.alphaPremultiplied = AVIF_FALSE;
    rgb.avoidLibYUV = image->depth > 8 ? AVIF_TRUE : AVIF_FALSE;
    rgb.rowBytes = image->width * 4;
    rgb.pixels = malloc((size_t)rgb.rowBytes * image->height);
    if (avifImageYUVToRGB(image, &rgb) != AVIF_RESULT_OK) { fprintf(stderr, "avif: YUV to RGB failed\n"); exit(1); }
    free(rgb.pixels);
    avifDecoderDestroy(decoder);
}

// --- libheif ---------------------------------------------------------------------------------

static void heif_check(struct heif_error e, const char *what) {
    if (e.code != heif_error_Ok) { fprintf(stderr, "heif: %s: %s\n", what, e.message); exit(1); }
}

// `handle`'s image as interleaved RGBA8, scaled to target_w x target_h when those are non-zero
// (heif_image_scale_image), copied row by row into a new buffer.
static void decode_heif_handle(struct heif_image_handle *handle, int target_w, int target_h) {
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    options->convert_hdr_to_8bit = 1;
    struct heif_image *image = NULL;
    heif_check(heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options), "decode");
    heif_decoding_options_free(options);
    if (target_w > 0 && (heif_image_get_width(image, heif_channel_interleaved) != target_w ||
                         heif_image_get_height(image, heif_channel_interleaved) != target_h)) {
        struct heif_image *scaled = NULL;
        heif_check(heif_image_scale_image(image, &scaled, target_w, target_h, NULL), "scale");
        heif_image_release(image);
        image = scaled;
    }
    int w = heif_image_get_width(image, heif_channel_interleaved), h = heif_image_get_height(image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    unsigned char *out = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++) memcpy(out + (size_t)y * w * 4, plane + (size_t)y * stride, (size_t)w * 4);
    free(out);
    heif_image_release(image);
}

// thumb_box 0: the primary image at full size; else the thumbnail path for a thumb_box square.
static void decode_heic(const struct file *f, int thumb_box) {
    struct heif_context *context = heif_context_alloc();
    heif_check(heif_context_read_from_memory_without_copy(context, f->bytes, f->size, NULL), "read");
    struct heif_image_handle *primary = NULL;
    heif_check(heif_context_get_primary_image_handle(context, &primary), "primary");
    if (!thumb_box) {
        decode_heif_handle(primary, 0, 0);
    } else {
        int w = heif_image_handle_get_width(primary), h = heif_image_handle_get_height(primary);
        // Fit w x h into the box, aspect kept, never enlarged.
        double scale = (double)thumb_box / (w > h ? w : h);
        if (scale > 1) scale = 1;
        int tw = (int)(w * scale + 0.5), th = (int)(h * scale + 0.5);
        if (tw < 1) tw = 1;
        if (th < 1) th = 1;
        heif_item_id ids[16];
        int n = heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, 16);
        struct heif_image_handle *best = NULL;
        for (int i = 0; i < n; i++) {
            struct heif_image_handle *thumb = NULL;
            if (heif_image_handle_get_thumbnail(primary, ids[i], &thumb).code != heif_error_Ok) continue;
            int a = heif_image_handle_get_width(thumb), b = heif_image_handle_get_height(thumb);
            if (a >= tw && b >= th && (!best || a * b < heif_image_handle_get_width(best) * heif_image_handle_get_height(best))) {
                if (best) heif_image_handle_release(best);
                best = thumb;
            } else {
                heif_image_handle_release(thumb);
            }
        }
        decode_heif_handle(best ? best : primary, tw, th);
        if (best) heif_image_handle_release(best);
    }
    heif_image_handle_release(primary);
    heif_context_free(context);
}

// --- librsvg ---------------------------------------------------------------------------------

static void decode_svg(const struct file *f) {
    GError *error = NULL;
    RsvgHandle *handle = rsvg_handle_new_from_data(f->bytes, f->size, &error);
    if (!handle) { fprintf(stderr, "svg: %s\n", error ? error->message : "?"); exit(1); }
    rsvg_handle_set_dpi(handle, 96);
    double w = 0, h = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(handle, &w, &h) || w <= 0 || h <= 0) {
        gboolean has_viewbox = FALSE;
        RsvgRectangle viewbox = {0};
        rsvg_handle_get_intrinsic_dimensions(handle, NULL, NULL, NULL, NULL, &has_viewbox, &viewbox);
        if (has_viewbox && viewbox.width > 0 && viewbox.height > 0) { w = viewbox.width; h = viewbox.height; }
        else { w = 512; h = 512; }
    }
    int width = (int)ceil(w), height = (int)ceil(h);
    unsigned char *out = malloc((size_t)width * height * 4);
    memset(out, 0, (size_t)width * height * 4);
    cairo_surface_t *surface = cairo_image_surface_create_for_data(out, CAIRO_FORMAT_ARGB32, width, height, width * 4);
    cairo_t *context = cairo_create(surface);
    cairo_scale(context, 1, 1); // the coder scales to the size asked for; here the intrinsic size
    RsvgRectangle viewport = {0, 0, width, height};
    if (!rsvg_handle_render_document(handle, context, &viewport, &error)) {
        fprintf(stderr, "svg: %s\n", error ? error->message : "?");
        exit(1);
    }
    cairo_destroy(context);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    for (size_t i = 0; i < (size_t)width * height * 4; i += 4) {
        unsigned b = out[i], g = out[i + 1], r = out[i + 2], a = out[i + 3];
        if (a == 255) { out[i] = (unsigned char)r; out[i + 2] = (unsigned char)b; }
        else if (a == 0) { out[i] = out[i + 1] = out[i + 2] = 0; }
        else {
            unsigned rr = (r * 255 + a / 2) / a, gg = (g * 255 + a / 2) / a, bb = (b * 255 + a / 2) / a;
            out[i] = (unsigned char)(rr > 255 ? 255 : rr);
            out[i + 1] = (unsigned char)(gg > 255 ? 255 : gg);
            out[i + 2] = (unsigned char)(bb > 255 ? 255 : bb);
        }
    }
    free(out);
    g_object_unref(handle);
}

static int has_extension(const char *name, const char *mode) {
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    if (strncmp(mode, "tiff", 4) == 0) return strcmp(dot, ".tif") == 0 || strcmp(dot, ".tiff") == 0;
    if (strcmp(mode, "ico") == 0) return strcmp(dot, ".ico") == 0 || strcmp(dot, ".cur") == 0;
    if (strcmp(mode, "avif") == 0) return strcmp(dot, ".avif") == 0;
    if (strcmp(mode, "svg") == 0) return strcmp(dot, ".svg") == 0;
    if (strncmp(mode, "heic", 4) == 0) return strcmp(dot, ".heic") == 0 || strcmp(dot, ".heif") == 0;
    return strcmp(dot, ".bmp") == 0;
}

static void decode(const char *mode, const struct file *f, int thumb_box) {
    if (strncmp(mode, "tiff", 4) == 0) decode_tiff(f, strcmp(mode, "tiff-rgba") == 0);
    else if (strcmp(mode, "avif") == 0) decode_avif(f);
    else if (strcmp(mode, "svg") == 0) decode_svg(f);
    else if (strncmp(mode, "heic", 4) == 0) decode_heic(f, thumb_box);
    else decode_pixbuf(f, mode);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: codec_limit tiff|tiff-rgba|bmp|ico|avif|heic|heic-thumb|svg DIR [REPS] [SIZE]\n"); return 2; }
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    const char *mode = argv[1], *dir = argv[2];
    int reps = argc > 3 ? atoi(argv[3]) : 20;
    DIR *d = opendir(dir);
    if (!d) { perror(dir); return 1; }
    char *names[4096];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < 4096;)
        if (has_extension(e->d_name, mode)) names[count++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, by_name);
    struct file *files = calloc((size_t)count, sizeof *files);
    for (int i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        files[i] = read_file(path);
    }
    int thumb_box = strcmp(mode, "heic-thumb") == 0 ? (argc > 4 ? atoi(argv[4]) : 256) : 0;
    heif_init(NULL);
    // Untimed warm-up: code, loaders and allocator.
    for (int i = 0; i < count; i++) decode(mode, &files[i], thumb_box);
    double start = now_s();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < count; i++) decode(mode, &files[i], thumb_box);
    double seconds = now_s() - start;
    int images = reps * count;
    printf("{\"subject\":\"c-%s\",\"images\":%d,\"seconds\":%.4f,\"ms_per_image\":%.4f}\n", mode, images, seconds,
           seconds * 1000 / images);
    return 0;
}
